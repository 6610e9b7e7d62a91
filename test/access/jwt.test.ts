import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportJWK, SignJWT, type JWTPayload } from 'jose'
import { describe, expect, it } from 'vitest'
import { accessSettingsFrom, type AccessEnvironment } from '../../src/access/settings.js'
import { buildTestApp } from '../helpers/app.js'
import { ADMIN_TOKEN, bearer, expectForbidden, expectUnauthorized } from './guarded-app.js'

const ISSUER = 'https://id.example'
const AUDIENCE = 'jsondocs'
const SECRET = 'a-shared-secret-of-at-least-32-bytes!'
const TEMPLATE = '[{"prefix":"users:{sub}:","rights":["read","write"]},{"prefix":"teams:{team}:","rights":["read"]}]'
const dir = mkdtempSync(join(tmpdir(), 'jsondocs-jwt-'))
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const rsaPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string
writeFileSync(join(dir, 'rsa.pem'), rsaPem)
writeFileSync(join(dir, 'jwks.json'), JSON.stringify({
  keys: [{ ...await exportJWK(ec.publicKey), kid: 'ec-1', use: 'sig' }, { ...await exportJWK(rsa.publicKey), kid: 'rsa-1', use: 'sig' }]
}))

function environment (key: Partial<AccessEnvironment>): AccessEnvironment {
  return {
    HOST: '0.0.0.0', COLLECTION_SEPARATOR: ':', AUTH_DISABLED: false, AUTH_ADMIN_TOKEN: ADMIN_TOKEN,
    AUTH_JWT_ISSUER: ISSUER, AUTH_JWT_AUDIENCE: AUDIENCE, AUTH_JWT_SCOPES: TEMPLATE, ...key
  }
}

async function appWith (key: Partial<AccessEnvironment>) {
  return buildTestApp({ access: accessSettingsFrom(environment(key)) })
}

const claims = { sub: '42', team: 'red' }
const now = () => Math.floor(Date.now() / 1000)

function sign (signingKey: KeyObject | Uint8Array, alg: string, payload: JWTPayload = claims, options: { kid?: string, exp?: number, nbf?: number, iss?: string, aud?: string } = {}) {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg, ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuer(options.iss ?? ISSUER).setAudience(options.aud ?? AUDIENCE).setIssuedAt().setExpirationTime(options.exp ?? now() + 600)
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf)
  return jwt.sign(signingKey)
}

const secretKey = new TextEncoder().encode(SECRET)
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

async function expectScoped (app: Awaited<ReturnType<typeof appWith>>, jwt: string) {
  const put = await app.inject({ method: 'PUT', url: '/docs/users:42:profile', headers: { ...bearer(jwt), 'content-type': 'application/json' }, payload: '{"a":1}' })
  expect(put.statusCode, put.body).toBeLessThan(300)
  expect((await app.inject({ method: 'GET', url: '/docs/teams:red:board', headers: bearer(jwt) })).statusCode).toBe(404)
  expectForbidden(await app.inject({ method: 'GET', url: '/docs/users:420:profile', headers: bearer(jwt) }))
  expectForbidden(await app.inject({ method: 'GET', url: '/docs/users:4', headers: bearer(jwt) }))
  expectForbidden(await app.inject({ method: 'PUT', url: '/docs/teams:red:board', headers: { ...bearer(jwt), 'content-type': 'application/json' }, payload: '1' }))
}

describe('JWTs signed with AUTH_JWT_SECRET (HS256)', async () => {
  const app = await appWith({ AUTH_JWT_SECRET: SECRET })

  it('grant the scopes their claims fill in', async () => {
    await expectScoped(app, await sign(secretKey, 'HS256'))
  })

  it('are 401 when expired, not yet valid, for another audience or issuer, or badly signed', async () => {
    const refused = [
      await sign(secretKey, 'HS256', claims, { exp: now() - 60 }),
      await sign(secretKey, 'HS256', claims, { nbf: now() + 60 }),
      await sign(secretKey, 'HS256', claims, { aud: 'another' }),
      await sign(secretKey, 'HS256', claims, { iss: 'https://evil.example' }),
      await sign(new TextEncoder().encode('another-secret-of-at-least-32-bytes!!'), 'HS256'),
      await sign(secretKey, 'HS384'),
      await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience(AUDIENCE).sign(secretKey)
    ]
    for (const [index, jwt] of refused.entries()) {
      expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/users:42:profile', headers: bearer(jwt) }), true, String(index))
    }
  })

  it('are trusted from memory never past `exp` (and its 5 s of tolerance)', async () => {
    const jwt = await sign(secretKey, 'HS256', claims, { exp: now() + 1 })
    expect((await app.inject({ method: 'GET', url: '/docs/users:42:none', headers: bearer(jwt) })).statusCode).toBe(404)
    const start = Date.now()
    while ((await app.inject({ method: 'GET', url: '/docs/users:42:none', headers: bearer(jwt) })).statusCode !== 401) {
      expect(Date.now() - start).toBeLessThan(10_000)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }, 15_000)

  it('are 401 with `alg: none`', async () => {
    const payload = { ...claims, iss: ISSUER, aud: AUDIENCE, exp: now() + 600 }
    for (const alg of ['none', 'None', 'NONE']) {
      const unsigned = `${base64url({ alg, typ: 'JWT' })}.${base64url(payload)}.`
      expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/users:42:profile', headers: bearer(unsigned) }), true, alg)
    }
  })

  it('are 401 when a claim would widen a prefix: empty, not a string, missing, or with the separator, a glob or control character', async () => {
    for (const sub of ['', 42, null, '4:2', '*', '4?', '[4]', '4\\', '4\u0000', '4\n']) {
      const jwt = await sign(secretKey, 'HS256', { ...claims, sub: sub as string })
      expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/users:42:profile', headers: bearer(jwt) }), true, JSON.stringify(sub))
    }
    const withoutTeam = await sign(secretKey, 'HS256', { sub: '42' })
    expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/users:42:profile', headers: bearer(withoutTeam) }), true)
  })
})

describe('JWTs verified with AUTH_JWT_PUBLIC_KEY_FILE (RS256)', async () => {
  const app = await appWith({ AUTH_JWT_PUBLIC_KEY_FILE: join(dir, 'rsa.pem') })

  it('grant the scopes their claims fill in', async () => {
    await expectScoped(app, await sign(rsa.privateKey, 'RS256'))
  })

  it('refuse HS256 signed with the public key as its secret (algorithm confusion), and other keys', async () => {
    const confused = [
      await sign(new TextEncoder().encode(rsaPem), 'HS256'),
      await sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, 'RS256'),
      await sign(rsa.privateKey, 'PS256')
    ]
    for (const jwt of confused) expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/users:42:profile', headers: bearer(jwt) }), true)
  })
})

describe('JWTs verified with AUTH_JWT_JWKS_FILE (RS256, ES256)', async () => {
  const app = await appWith({ AUTH_JWT_JWKS_FILE: join(dir, 'jwks.json') })

  it('grant the scopes their claims fill in, for each key of the set', async () => {
    await expectScoped(app, await sign(ec.privateKey, 'ES256', claims, { kid: 'ec-1' }))
    await expectScoped(app, await sign(rsa.privateKey, 'RS256', claims, { kid: 'rsa-1' }))
  })

  it('refuse HS256 made with a key of the set as its secret', async () => {
    const jwt = await sign(new TextEncoder().encode(rsaPem), 'HS256', claims, { kid: 'rsa-1' })
    expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/users:42:profile', headers: bearer(jwt) }), true)
  })
})

describe('JWT settings', () => {
  it('refuse to start when incomplete, contradictory or unreadable, naming the setting', () => {
    expect(() => accessSettingsFrom(environment({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_JWKS_FILE: join(dir, 'jwks.json') }))).toThrow(/one of/)
    expect(() => accessSettingsFrom({ ...environment({ AUTH_JWT_SECRET: SECRET }), AUTH_JWT_AUDIENCE: undefined })).toThrow(/AUTH_JWT_AUDIENCE/)
    expect(() => accessSettingsFrom(environment({ AUTH_JWT_PUBLIC_KEY_FILE: join(dir, 'missing.pem') }))).toThrow(/AUTH_JWT_PUBLIC_KEY_FILE/)
    expect(() => accessSettingsFrom(environment({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_SCOPES: '{"prefix":""}' }))).toThrow(/AUTH_JWT_SCOPES/)
    expect(() => accessSettingsFrom({ ...environment({}), AUTH_JWT_SCOPES: TEMPLATE })).toThrow(/need a JWT key/)
  })
})
