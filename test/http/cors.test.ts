import { describe, expect, it } from 'vitest'
import { parseCorsOrigins } from '../../src/http/cors.js'
import { loadEnvironment } from '../../src/config.js'
import { buildTestApp, overSocket, put, uniqueKey } from '../helpers/app.js'

const APP = 'http://app.example.test:5173'
const OTHER = 'https://evil.example.test'
const ADMIN = 'admin-token-for-cors-tests-0123456789abcdef'
const app = await buildTestApp({ corsOrigins: [APP], cacheMaxEntries: 1000 })
const guarded = await buildTestApp({ corsOrigins: [APP], basePath: '/api', access: { adminToken: ADMIN, anonymousScopes: [], open: false } })

function preflight (target: typeof app, url: string, origin: string, method = 'PUT', headers = 'authorization, content-type, if-match') {
  return target.inject({
    method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers }
  })
}

describe('CORS preflights', () => {
  it('from an allowed origin are 204 with the methods, headers and max age, whatever the route', async () => {
    for (const url of [`/docs/${uniqueKey()}`, `/docs/${uniqueKey()}/a/b`, '/batch/read', '/tokens', '/schemas/c', '/no/such/route']) {
      const response = await preflight(app, url, APP)
      expect(response.statusCode, url).toBe(204)
      expect(response.headers['access-control-allow-origin']).toBe(APP)
      expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS')
      expect(String(response.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization')
      expect(response.headers['access-control-max-age']).toBe('600')
      expect(response.headers['access-control-allow-credentials']).toBeUndefined()
      expect(response.headers['vary']).toMatch(/Origin/)
    }
  })

  it('from another origin carry no Access-Control-Allow-Origin, so the browser refuses', async () => {
    for (const origin of [OTHER, 'null', APP + '.evil.test', APP.replace('http:', 'https:'), APP + '/']) {
      const response = await preflight(app, `/docs/${uniqueKey()}`, origin)
      expect(response.headers['access-control-allow-origin'], origin).toBeUndefined()
    }
  })

  it('need no credentials when access is enforced, under BASE_PATH', async () => {
    const response = await preflight(guarded, '/api/docs/users:1:doc', APP, 'DELETE')
    expect(response.statusCode).toBe(204)
    expect(response.headers['access-control-allow-origin']).toBe(APP)
  })

  it('leave a plain OPTIONS to the route: 204 with Allow', async () => {
    const response = await app.inject({ method: 'OPTIONS', url: `/docs/${uniqueKey()}`, headers: { origin: APP } })
    expect(response.statusCode).toBe(204)
    expect(response.headers['allow']).toBe('GET, HEAD, PUT, PATCH, POST, DELETE')
    const unknown = await app.inject({ method: 'OPTIONS', url: '/no/such/route' })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/)
  })
})

describe('CORS on answers', () => {
  it('let an allowed origin read the answer and its headers, cached reads over a socket included', async () => {
    const url = `/docs/${uniqueKey()}`
    const created = await put(app, url, { a: 1 }, { origin: APP })
    expect(created.headers['access-control-allow-origin']).toBe(APP)
    const exposed = String(created.headers['access-control-expose-headers'])
    for (const header of ['ETag', 'Location', 'Expires-In', 'Retry-After', 'X-Request-Id', 'RateLimit', 'RateLimit-Policy']) expect(exposed).toContain(header)
    for (let round = 0; round < 2; round++) {
      const read = await overSocket(app, 'GET', url, { origin: APP })
      expect(read.statusCode).toBe(200)
      expect(read.headers['access-control-allow-origin']).toBe(APP)
      expect(read.headers['vary']).toMatch(/Origin/)
    }
    const other = await overSocket(app, 'GET', url, { origin: OTHER })
    expect(other.statusCode).toBe(200)
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('are on refusals too: 401 and 403 problems a browser can read', async () => {
    const missing = await guarded.inject({ method: 'GET', url: '/api/docs/users:1:doc', headers: { origin: APP } })
    expect(missing.statusCode).toBe(401)
    expect(missing.headers['access-control-allow-origin']).toBe(APP)
    expect(String(missing.headers['access-control-expose-headers'])).toContain('WWW-Authenticate')
    const notFound = await app.inject({ method: 'GET', url: `/docs/${uniqueKey()}`, headers: { origin: APP } })
    expect(notFound.statusCode).toBe(404)
    expect(notFound.headers['access-control-allow-origin']).toBe(APP)
  })

  it('are absent without CORS_ORIGINS', async () => {
    const plain = await buildTestApp()
    const response = await preflight(plain, `/docs/${uniqueKey()}`, APP)
    expect(response.headers['access-control-allow-origin']).toBeUndefined()
    expect((await plain.inject({ method: 'GET', url: `/docs/${uniqueKey()}`, headers: { origin: APP } })).headers['access-control-allow-origin']).toBeUndefined()
  })

  it('answer every origin with `*`', async () => {
    const open = await buildTestApp({ corsOrigins: '*' })
    const response = await open.inject({ method: 'GET', url: '/livez', headers: { origin: OTHER } })
    expect(response.headers['access-control-allow-origin']).toBe('*')
  })
})

describe('CORS_ORIGINS', () => {
  it('takes `*` or exact origins, and refuses anything else with a sentence', () => {
    expect(parseCorsOrigins('*')).toBe('*')
    expect(parseCorsOrigins('https://a.example, http://localhost:5173')).toEqual(['https://a.example', 'http://localhost:5173'])
    for (const bad of ['https://a.example/', 'https://a.example/app', 'a.example', 'ftp://a.example', 'null', ',', 'https://*.example']) {
      expect(() => loadEnvironment({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/)
    }
  })
})
