import { describe, expect, it } from 'vitest'
import { buildTestApp, get, jsonPatch, operate, overSocket, patch, put, remove, send, uniqueKey } from '../helpers/app.js'

const BASE = '/api/v1'
const app = await buildTestApp({ basePath: BASE, cacheMaxEntries: 1000 })

describe('BASE_PATH: every route is served under it', () => {
  it('serves the document routes, with locations under it', async () => {
    const key = `users:${uniqueKey()}`
    const url = `${BASE}/docs/${encodeURIComponent(key)}`
    const created = await put(app, url, { name: 'Ann', 'a/b': { c: 1 }, n: 1 })
    expect(created.statusCode).toBe(201)
    expect(created.headers['location']).toBe(url)
    expect((await get(app, `${url}/name`)).json()).toBe('Ann')
    expect((await get(app, `${url}/a%2Fb/c`)).json()).toBe(1)
    expect((await get(app, `${url}/a~1b/c`)).json()).toBe(1)
    expect((await get(app, `${url}?pointer=/a~1b`)).json()).toEqual({ c: 1 })
    const added = await put(app, `${url}?pointer=/tags`, ['a'])
    expect(added.statusCode).toBe(201)
    expect(added.headers['location']).toBe(`${url}?pointer=%2Ftags`)
    expect((await patch(app, url, { name: 'Bo' })).json()).toMatchObject({ name: 'Bo' })
    expect((await jsonPatch(app, url, [{ op: 'add', path: '/tags/-', value: 'b' }])).statusCode).toBe(200)
    expect((await operate(app, `${url}/n`, { op: 'incr', by: 2 })).json()).toEqual({ result: 3 })
    expect((await remove(app, `${url}/tags/0`)).statusCode).toBe(204)
    expect((await get(app, `${url}/tags`)).json()).toEqual(['b'])
    expect((await app.inject({ method: 'OPTIONS', url })).headers['allow']).toBe('GET, HEAD, PUT, PATCH, POST, DELETE')
  })

  it('answers reads from the answer cache under it', async () => {
    const url = `${BASE}/docs/${uniqueKey()}`
    await put(app, url, { a: 1 })
    expect((await overSocket(app, 'GET', `${url}/a`)).body).toBe('1')
    const hits = app.answerCache.hits
    expect((await overSocket(app, 'GET', `${url}/a`)).body).toBe('1')
    expect(app.answerCache.hits).toBe(hits + 1)
  })

  it('serves listing, batches, TTL, meta, schemas and health, with links under it', async () => {
    const prefix = `base-${uniqueKey()}:`
    for (let index = 0; index < 3; index++) await put(app, `${BASE}/docs/${prefix}${index}`, { index })
    const page = await get(app, `${BASE}/docs?prefix=${prefix}&limit=1`)
    expect(page.statusCode).toBe(200)
    expect(page.headers['link']).toMatch(new RegExp(`^<${BASE}/docs\\?prefix=`))
    const read = await send(app, 'POST', `${BASE}/batch/read`, JSON.stringify({ keys: [`${prefix}0`], pointer: '/index' }))
    expect(read.json()).toMatchObject({ items: [{ status: 200, value: 0 }] })
    expect((await send(app, 'PUT', `${BASE}/ttl/${prefix}0`, '{"ttl":60}')).statusCode).toBe(200)
    expect((await get(app, `${BASE}/ttl/${prefix}0`)).json().ttl).toBeGreaterThan(59)
    expect((await get(app, `${BASE}/meta/${prefix}0/index`)).json()).toMatchObject({ type: 'integer' })
    const collection = `c${uniqueKey().replaceAll('-', '')}`
    const schema = await send(app, 'PUT', `${BASE}/schemas/${collection}`, '{"type":"object"}')
    expect(schema.statusCode).toBe(201)
    expect(schema.headers['location']).toBe(`${BASE}/schemas/${collection}`)
    expect((await get(app, `${BASE}/health`)).statusCode).toBe(200)
  })

  it('describes the API relative to it, and serves the reference page under it', async () => {
    const description = (await get(app, `${BASE}/openapi.json`)).json()
    expect(description.servers).toEqual([{ url: BASE, description: 'This service' }])
    expect(Object.keys(description.paths)).toContain('/docs/{key}')
    expect(Object.keys(description.paths).filter((path) => path.startsWith(BASE))).toEqual([])
    expect((await get(app, `${BASE}/openapi.yaml`)).body).toContain(`url: ${BASE}`)
    expect((await get(app, `${BASE}/reference/`)).statusCode).toBe(200)
  })

  it('serves nothing outside it, and answers methods a route lacks with 405 under it', async () => {
    const key = uniqueKey()
    await put(app, `${BASE}/docs/${key}`, { a: 1 })
    for (const url of [`/docs/${key}`, '/health', '/openapi.json', `${BASE}x/docs/${key}`, `/api/docs/${key}`]) {
      const outside = await get(app, url)
      expect(outside.statusCode).toBe(404)
      expect(outside.json()).toMatchObject({ code: 'DOCS_ERR_ROUTE_NOT_FOUND' })
    }
    const trace = await app.inject({ method: 'TRACE', url: `${BASE}/docs/${key}` })
    expect(trace.statusCode).toBe(405)
    expect(trace.headers['allow']).toBe('GET, HEAD, PUT, PATCH, POST, DELETE')
  })
})

describe('BASE_PATH with access enforced', () => {
  it('checks the key the route params name, cached reads included', async () => {
    const ADMIN = 'admin-token-for-base-path-tests-0123456789'
    const guarded = await buildTestApp({ basePath: BASE, access: { adminToken: ADMIN, anonymousScopes: [], open: false } })
    const admin = { authorization: `Bearer ${ADMIN}` }
    const created = await guarded.inject({
      method: 'POST', url: `${BASE}/tokens`, headers: admin, payload: { scopes: [{ prefix: 'a:1:', rights: ['read'] }] }
    })
    expect(created.statusCode, created.body).toBe(201)
    const scoped = { authorization: `Bearer ${created.json().token}` }
    for (const key of ['a:1:x', 'a:10:x']) {
      expect((await guarded.inject({ method: 'PUT', url: `${BASE}/docs/${key}`, headers: admin, payload: { k: key } })).statusCode).toBe(201)
      // Twice as the admin over a socket: the second is answered from the answer cache.
      for (let round = 0; round < 2; round++) expect((await overSocket(guarded, 'GET', `${BASE}/docs/${key}/k`, admin)).statusCode).toBe(200)
    }
    expect((await overSocket(guarded, 'GET', `${BASE}/docs/a:1:x/k`, scoped)).body).toBe('"a:1:x"')
    expect((await overSocket(guarded, 'GET', `${BASE}/docs/a:10:x/k`, scoped)).statusCode).toBe(403)
    expect((await overSocket(guarded, 'GET', `${BASE}/docs/a%3A10%3Ax/k`, scoped)).statusCode).toBe(403)
    expect((await overSocket(guarded, 'GET', `${BASE}/docs/a:1:x/k`)).statusCode).toBe(401)
    expect((await guarded.inject({ method: 'PUT', url: `${BASE}/docs/a:1:x/k`, headers: { ...scoped, 'content-type': 'application/json' }, payload: '1' })).statusCode).toBe(403)
    await guarded.close()
  })
})
