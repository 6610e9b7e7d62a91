import Fastify, { type InjectOptions } from 'fastify'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import accessPlugin from '../../src/access/plugin.js'
import type { Right } from '../../src/access/scopes.js'
import problemsPlugin from '../../src/http/problems.js'
import redisPlugin from '../../src/redis/plugin.js'
import { connectRedis, overSocket } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { ADMIN_TOKEN, bearer, buildGuardedApp, expectForbidden, expectUnauthorized, tokenFor } from './guarded-app.js'

/**
 * Every document route, for each right, with a token scoped to `u:42:`: keys under the prefix are
 * reached, siblings (`u:420:`, `u:4`), percent-encoded spellings and `?pointer=` forms of keys outside
 * it are 403, and nothing outside is read or written.
 */
const app = await buildGuardedApp()
const redis = await connectRedis()
const INSIDE = 'u:42:doc'
const OUTSIDE = ['u:420:doc', 'u:4', 'u:43:doc', 'u:42']
const tokens = {} as Record<Right | 'all', string>

interface Case { name: string, right: Right, request: (key: string) => InjectOptions }

const json = (method: 'PUT' | 'PATCH' | 'POST', url: string, body: unknown, type = 'application/json'): InjectOptions =>
  ({ method, url, payload: JSON.stringify(body), headers: { 'content-type': type } })
const encoded = (key: string) => encodeURIComponent(key)

const cases: Case[] = [
  { name: 'GET a document', right: 'read', request: (key) => ({ method: 'GET', url: `/docs/${key}` }) },
  { name: 'GET percent-encoded', right: 'read', request: (key) => ({ method: 'GET', url: `/docs/${encoded(key)}` }) },
  { name: 'HEAD a document', right: 'read', request: (key) => ({ method: 'HEAD', url: `/docs/${key}` }) },
  { name: 'GET a member', right: 'read', request: (key) => ({ method: 'GET', url: `/docs/${key}/n` }) },
  { name: 'GET ?pointer=', right: 'read', request: (key) => ({ method: 'GET', url: `/docs/${encoded(key)}?pointer=/n` }) },
  { name: 'GET ?jsonpath=', right: 'read', request: (key) => ({ method: 'GET', url: `/docs/${key}?jsonpath=$.n` }) },
  { name: 'GET /meta', right: 'read', request: (key) => ({ method: 'GET', url: `/meta/${key}?pointer=/n` }) },
  { name: 'GET /meta at a path', right: 'read', request: (key) => ({ method: 'GET', url: `/meta/${key}/n` }) },
  { name: 'GET /ttl', right: 'read', request: (key) => ({ method: 'GET', url: `/ttl/${encoded(key)}` }) },
  { name: 'PUT a document', right: 'write', request: (key) => json('PUT', `/docs/${key}`, { n: 1, a: [] }) },
  { name: 'PUT ?pointer=', right: 'write', request: (key) => json('PUT', `/docs/${encoded(key)}?pointer=/n`, 2) },
  { name: 'PUT a member', right: 'write', request: (key) => json('PUT', `/docs/${key}/n`, 3) },
  { name: 'merge PATCH', right: 'write', request: (key) => json('PATCH', `/docs/${key}`, { m: 1 }, 'application/merge-patch+json') },
  {
    name: 'JSON Patch copy',
    right: 'write',
    request: (key) => json('PATCH', `/docs/${key}`, [{ op: 'copy', from: '/n', path: '/c' }], 'application/json-patch+json')
  },
  { name: 'POST an operation', right: 'write', request: (key) => json('POST', `/docs/${key}/n`, { op: 'incr', by: 1 }) },
  { name: 'DELETE a member', right: 'write', request: (key) => ({ method: 'DELETE', url: `/docs/${key}/m` }) },
  { name: 'PUT /ttl', right: 'write', request: (key) => json('PUT', `/ttl/${key}`, { ttl: 600 }) },
  { name: 'DELETE /ttl', right: 'write', request: (key) => ({ method: 'DELETE', url: `/ttl/${key}` }) },
  { name: 'DELETE a document', right: 'write', request: (key) => ({ method: 'DELETE', url: `/docs/${key}` }) }
]

function as (token: string | undefined, options: InjectOptions) {
  return app.inject({ ...options, headers: { ...options.headers as Record<string, string>, ...(token ? bearer(token) : {}) } })
}

async function seed (key: string) {
  const response = await as(ADMIN_TOKEN, json('PUT', `/docs/${encoded(key)}`, { n: 1, m: 0 }))
  expect(response.statusCode).toBeLessThan(300)
}

/** What Redis holds under the service's prefix for a key, read behind its back. */
async function stored (key: string) {
  return redis.sendCommand<string | null>(['JSON.GET', app.keyPrefix + key, '$'])
}

beforeAll(async () => {
  for (const right of ['read', 'write', 'schema'] as const) tokens[right] = (await tokenFor(app, [{ prefix: 'u:42:', rights: [right] }])).token
  tokens.all = (await tokenFor(app, [{ prefix: 'u:42:', rights: ['read', 'write', 'schema'] }])).token
})

describe('a token scoped to the prefix u:42:', () => {
  it.each(cases)('$name: reaches keys under it with the right', async ({ right, request }) => {
    await seed(INSIDE)
    const response = await as(tokens[right], request(INSIDE))
    expect([401, 403], response.body).not.toContain(response.statusCode)
    expect(response.statusCode).toBeLessThan(300)
  })

  it.each(cases)('$name: is 403 without the right, even under its prefix', async ({ right, request }) => {
    await seed(INSIDE)
    const before = await stored(INSIDE)
    for (const other of (['read', 'write', 'schema'] as const).filter((candidate) => candidate !== right)) {
      expectForbidden(await as(tokens[other], request(INSIDE)), other)
    }
    expect(await stored(INSIDE)).toBe(before)
  })

  it.each(cases)('$name: is 403 on siblings and other keys, which stay untouched', async ({ request }) => {
    for (const key of OUTSIDE) {
      await seed(key)
      const before = await stored(key)
      const ttl = await redis.sendCommand<number>(['PTTL', app.keyPrefix + key])
      const response = await as(tokens.all, request(key))
      expectForbidden(response, key)
      expect(response.body).not.toContain('"n"')
      expect(await stored(key)).toBe(before)
      expect(await redis.sendCommand<number>(['PTTL', app.keyPrefix + key])).toBe(ttl)
    }
  })

  it.each(cases)('$name: is 401 without credentials, and with a token that is not one', async ({ request }) => {
    expectUnauthorized(await as(undefined, request(INSIDE)), false)
    expectUnauthorized(await as('jdt.00000000000000000000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', request(INSIDE)), true)
    expectUnauthorized(await as('not a token', request(INSIDE)), true)
    const basic = await app.inject({ ...request(INSIDE), headers: { ...request(INSIDE).headers as Record<string, string>, authorization: 'Basic dTpw' } })
    expectUnauthorized(basic, false)
  })
})

describe('reads the answer cache holds', () => {
  it('are refused outside the scopes, through inject and over a socket', async () => {
    const key = 'u:43:cached'
    await seed(key)
    // The admin's reads put the answer in the cache; the scoped token's must not be answered from it.
    for (let round = 0; round < 2; round++) expect((await as(ADMIN_TOKEN, { method: 'GET', url: `/docs/${key}` })).statusCode).toBe(200)
    expectForbidden(await as(tokens.all, { method: 'GET', url: `/docs/${key}` }))
    expectForbidden(await as(tokens.all, { method: 'HEAD', url: `/docs/${key}` }))
    expect((await overSocket(app, 'GET', `/docs/${key}`, bearer(ADMIN_TOKEN))).statusCode).toBe(200)
    expectForbidden(await overSocket(app, 'GET', `/docs/${key}`, bearer(tokens.all)))
    expect((await overSocket(app, 'GET', `/docs/${key}`)).statusCode).toBe(401)
    expect((await overSocket(app, 'HEAD', `/docs/${key}`, bearer(tokens.all))).statusCode).toBe(403)
  })
})

describe('the admin token', () => {
  it('reaches every key and alone manages tokens', async () => {
    await seed('anywhere')
    expect((await as(ADMIN_TOKEN, { method: 'GET', url: '/docs/anywhere' })).statusCode).toBe(200)
    expectForbidden(await as(tokens.all, json('POST', '/tokens', { scopes: [{ prefix: '', rights: ['read'] }] })))
    expectForbidden(await as(tokens.all, { method: 'GET', url: '/tokens' }))
    expectUnauthorized(await as(undefined, { method: 'GET', url: '/tokens' }), false)
    expectUnauthorized(await as(ADMIN_TOKEN.slice(0, -1), { method: 'GET', url: '/tokens' }), true)
  })
})

describe('public routes', () => {
  it('answer without credentials, and whatever credentials are sent', async () => {
    for (const url of ['/health', '/openapi.json', '/openapi.yaml', '/reference/', '/sdk/jsondocs.js', '/sdk/jsondocs.js.map',
      '/console', '/console/console.js', '/console/console.css']) {
      for (const token of [undefined, 'garbage']) {
        const response = await as(token, { method: 'GET', url })
        expect(response.statusCode, url).toBeLessThan(400)
      }
    }
    expect((await as(undefined, { method: 'OPTIONS', url: '/docs/u:43:doc' })).statusCode).toBe(204)
    expect((await as(undefined, { method: 'TRACE', url: '/docs/u:43:doc' })).statusCode).toBe(405)
    expect((await as(undefined, { method: 'GET', url: '/nowhere' })).statusCode).toBe(404)
  })
})

describe('every route', () => {
  it('declares its access rule, so none can be forgotten', () => {
    const rules = app.access.declaredRules()
    expect(rules.length).toBeGreaterThan(30)
    expect(rules.filter((route) => route.rule === undefined)).toEqual([])
  })

  it('refuses everyone, the admin too, when it declares none', async () => {
    const bare = Fastify()
    whenDone(() => bare.close())
    await bare.register(problemsPlugin, { retryAfterSeconds: 1 })
    await bare.register(redisPlugin, { connection: inject('redis'), commandTimeoutMs: 2000 })
    await bare.register(accessPlugin, {
      settings: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false }, keyPrefix: app.keyPrefix, collectionSeparator: ':', timeoutMs: 2000
    })
    bare.get('/undeclared', async () => 'reached')
    const response = await bare.inject({ method: 'GET', url: '/undeclared', headers: bearer(ADMIN_TOKEN) })
    expectForbidden(response)
    expect(response.json().detail).toMatch(/declares no access rule/)
  })
})
