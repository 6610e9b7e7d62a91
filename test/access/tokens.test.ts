import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { connectRedis, overSocket, testConfig } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { ADMIN_TOKEN, bearer, buildGuardedApp, expectUnauthorized, tokenFor } from './guarded-app.js'

const app = await buildGuardedApp()
const redis = await connectRedis()

/** Polls until check holds, at most `withinMs`; returns how long it took. */
async function within (withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now()
  while (!await check()) {
    if (Date.now() - start > withinMs) throw new Error(`not within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return Date.now() - start
}

describe('POST /tokens', () => {
  it('answers 201 with an id and a secret of at least 256 bits, shown once', async () => {
    const response = await app.inject({
      method: 'POST', url: '/tokens', headers: bearer(ADMIN_TOKEN), payload: { scopes: [{ prefix: 'a:', rights: ['read'] }], label: 'a reader' }
    })
    expect(response.statusCode).toBe(201)
    expect(response.headers['cache-control']).toBe('no-store')
    const { id, token } = response.json()
    expect(id).toMatch(/^[0-9a-f]{32}$/)
    const secret = token.split('.')[2] as string
    expect(Buffer.from(secret, 'base64url').length).toBeGreaterThanOrEqual(32)
    // Redis keeps a hash: neither the token nor its secret is anywhere under the service's prefix.
    const keys = await redis.sendCommand<string[]>(['KEYS', `${app.keyPrefix}*`])
    for (const key of keys) {
      const type = await redis.sendCommand<string>(['TYPE', key])
      const dump = type === 'hash' ? JSON.stringify(await redis.sendCommand(['HGETALL', key])) : ''
      expect(dump).not.toContain(secret)
    }
    expect(keys.some((key) => key.includes('\u001ftoken\u001f'))).toBe(true)
  })

  it('refuses malformed scopes with 400', async () => {
    for (const scopes of [[{ prefix: 'a:' }], [{ prefix: 'a:', rights: ['admin'] }], [{ prefix: 'a:\u0001', rights: ['read'] }], 'all', [{ prefix: 'a', rights: [] }]]) {
      const response = await app.inject({ method: 'POST', url: '/tokens', headers: bearer(ADMIN_TOKEN), payload: { scopes } })
      expect(response.statusCode, JSON.stringify(scopes)).toBe(400)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
    }
  })
})

describe('GET /tokens', () => {
  it('lists live tokens with their scopes, labels and expiry, without secrets', async () => {
    const { id, token } = await tokenFor(app, [{ prefix: 'b:', rights: ['read', 'write'] }], 3600)
    const response = await app.inject({ method: 'GET', url: '/tokens', headers: bearer(ADMIN_TOKEN) })
    expect(response.statusCode).toBe(200)
    expect(response.body).not.toContain(token.split('.')[2])
    const listed = response.json().tokens.find((entry: { id: string }) => entry.id === id)
    expect(listed).toMatchObject({ id, scopes: [{ prefix: 'b:', rights: ['read', 'write'] }] })
    expect(Date.parse(listed.expiresAt) - Date.now()).toBeGreaterThan(3500 * 1000)
  })
})

describe('a token', () => {
  it('stops working when its time to live ends', async () => {
    const { id, token } = await tokenFor(app, [{ prefix: 'c:', rights: ['read'] }], 0.3)
    expect((await app.inject({ method: 'GET', url: '/docs/c:1', headers: bearer(token) })).statusCode).toBe(404)
    await within(3000, async () => (await app.inject({ method: 'GET', url: '/docs/c:1', headers: bearer(token) })).statusCode === 401)
    const listed = (await app.inject({ method: 'GET', url: '/tokens', headers: bearer(ADMIN_TOKEN) })).json().tokens
    expect(listed.map((entry: { id: string }) => entry.id)).not.toContain(id)
  })

  it('revoked on one instance is refused by another on the same Redis within a second', async () => {
    const other = await buildApp({ ...testConfig(), keyPrefix: app.keyPrefix, access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false } })
    whenDone(() => other.close())
    const { id, token } = await tokenFor(app, [{ prefix: 'd:', rights: ['read'] }])
    // Both instances have verified it, and remember it.
    for (const instance of [app, other]) expect((await instance.inject({ method: 'GET', url: '/docs/d:1', headers: bearer(token) })).statusCode).toBe(404)
    expect((await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: bearer(ADMIN_TOKEN) })).statusCode).toBe(204)
    await within(1500, async () => (await other.inject({ method: 'GET', url: '/docs/d:1', headers: bearer(token) })).statusCode === 401)
    expectUnauthorized(await other.inject({ method: 'GET', url: '/docs/d:1', headers: bearer(token) }), true)
    expect((await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: bearer(ADMIN_TOKEN) })).statusCode).toBe(404)
  })

  it('with a right secret for another id, or a tampered one, is refused', async () => {
    const first = await tokenFor(app, [{ prefix: 'e:', rights: ['read'] }])
    const second = await tokenFor(app, [{ prefix: 'f:', rights: ['read'] }])
    const swapped = `jdt.${first.id}.${second.token.split('.')[2]}`
    expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/e:1', headers: bearer(swapped) }), true)
    const tampered = first.token.slice(0, -1) + (first.token.endsWith('A') ? 'B' : 'A')
    expectUnauthorized(await app.inject({ method: 'GET', url: '/docs/e:1', headers: bearer(tampered) }), true)
  })

  it('is refused when Redis does not answer, with 503 rather than access', async () => {
    const guarded = await buildGuardedApp({})
    const { token } = await tokenFor(guarded, [{ prefix: 'g:', rights: ['read'] }])
    await guarded.redis.close()
    const response = await guarded.inject({ method: 'GET', url: '/docs/g:1', headers: bearer(token) })
    expect(response.statusCode).toBe(503)
    expect(response.json().code).toBe('DOCS_ERR_REDIS_UNAVAILABLE')
  })
})

describe('anonymous scopes', () => {
  it('grant their rights without a token, and nothing else', async () => {
    const open = await buildGuardedApp({ anonymousScopes: [{ prefix: 'public:', rights: ['read'] }] })
    expect((await open.inject({ method: 'PUT', url: '/docs/public:1', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' }, payload: '1' })).statusCode).toBe(201)
    expect((await open.inject({ method: 'GET', url: '/docs/public:1' })).statusCode).toBe(200)
    expectUnauthorized(await open.inject({ method: 'GET', url: '/docs/private:1' }), false)
    expectUnauthorized(await open.inject({ method: 'PUT', url: '/docs/public:1', headers: { 'content-type': 'application/json' }, payload: '2' }), false)
    // A token's holder keeps what everyone has.
    const { token } = await tokenFor(open, [{ prefix: 'mine:', rights: ['read'] }])
    expect((await open.inject({ method: 'GET', url: '/docs/public:1', headers: bearer(token) })).statusCode).toBe(200)
  })
})

describe('malformed credentials', () => {
  // Fuzzing once reported HEAD answered 400 where GET carried DOCS_ERR_UNAUTHORIZED: a HEAD answers GET's status.
  // A bearer token refused says error="invalid_token"; credentials of another scheme (or none) say no error (RFC 6750, 3.1).
  const shapes: Array<[string, Record<string, string>, boolean]> = [
    ['an empty bearer token', { authorization: 'Bearer ' }, true],
    ['the scheme alone', { authorization: 'Bearer' }, true],
    ['two tokens', { authorization: 'Bearer a b' }, true],
    ['another scheme', { authorization: 'Basic dTpw' }, false],
    ['no scheme', { authorization: ADMIN_TOKEN }, false],
    ['a token with a control character', { authorization: 'Bearer a\u0001b' }, true],
    ['a token past 4096 characters', bearer('x'.repeat(5000)), true]
  ]
  const urls = ['/docs/u:1', '/collections/orders/query?/status=open', '/collections/orders/aggregate', '/collections/orders/index', '/docs?ticket=jst.x.y']

  it.each(shapes)('%s: 401 DOCS_ERR_UNAUTHORIZED with WWW-Authenticate, on GET and HEAD alike, through inject and over a socket', async (_name, headers, bearerSent) => {
    for (const url of urls) {
      const got = await app.inject({ method: 'GET', url, headers })
      expectUnauthorized(got, bearerSent)
      const head = await app.inject({ method: 'HEAD', url, headers })
      expect(head.statusCode, `HEAD ${url}`).toBe(401)
      expect(head.headers['www-authenticate'], `HEAD ${url}`).toBe(got.headers['www-authenticate'])
      expect(head.body).toBe('')
    }
    if (/^[\x20-\x7e]*$/.test(headers.authorization!)) {
      for (const method of ['GET', 'HEAD'] as const) expect((await overSocket(app, method, urls[1]!, headers)).statusCode, method).toBe(401)
    }
  })
})
