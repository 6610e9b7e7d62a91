import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, jsonPatch, operate, patch, put, uniqueKey, versionKeyOf } from '../helpers/app.js'
import { eventually } from '../helpers/local-redis.js'

const app = await buildTestApp()
const redis = await connectRedis()

const ttlOf = async (key: string) => (await app.inject({ method: 'GET', url: `/ttl/${key}` })).json().ttl as number | null

describe('a TTL given with a write applies with it', () => {
  it.each([
    ['PUT', (key: string) => put(app, `/docs/${key}?ttl=100`, { a: 1 })],
    ['PUT at a location', (key: string) => put(app, `/docs/${key}/a?ttl=100`, 2)],
    ['merge patch', (key: string) => patch(app, `/docs/${key}?ttl=100`, { b: 1 })],
    ['JSON Patch', (key: string) => jsonPatch(app, `/docs/${key}?ttl=100`, [{ op: 'add', path: '/b', value: 1 }])],
    ['operation', (key: string) => operate(app, `/docs/${key}/a?ttl=100`, { op: 'incr', by: 1 })]
  ])('%s', async (_name, write) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const response = await write(key)
    expect(response.statusCode).toBeLessThan(300)
    expect(response.headers['expires-in']).toBe('100')
    const pttl = await redis.pTTL(app.keyPrefix + key)
    expect(pttl).toBeGreaterThan(95_000)
    expect(pttl).toBeLessThanOrEqual(100_000)
    expect(await redis.pTTL(versionKeyOf(app.keyPrefix, key))).toBeGreaterThan(95_000)
    expect((await get(app, `/docs/${key}`)).headers['expires-in']).toMatch(/^(99|100)$/)
  })

  it('is kept by later writes without a TTL, and documents expire with their version', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}?ttl=0.3`, { a: 1 })
    await put(app, `/docs/${key}/a`, 2)
    expect(await redis.pTTL(app.keyPrefix + key)).toBeGreaterThan(0)
    await eventually(async () => (await get(app, `/docs/${key}`)).statusCode === 404, 5000)
    expect(await redis.exists(versionKeyOf(app.keyPrefix, key))).toBe(0)
  })

  it('refuses a TTL that is not a positive number of seconds', async () => {
    for (const ttl of ['0', '-1', 'soon', '1e12']) {
      expect((await put(app, `/docs/${uniqueKey()}?ttl=${ttl}`, 1)).statusCode).toBe(400)
    }
  })
})

describe('/ttl/{key}', () => {
  it('sets, reads and removes a TTL on its own, without changing the ETag', async () => {
    const key = uniqueKey()
    const created = await put(app, `/docs/${key}`, { a: 1 })
    expect(await ttlOf(key)).toBeNull()
    expect((await get(app, `/docs/${key}`)).headers['expires-in']).toBeUndefined()
    const set = await app.inject({ method: 'PUT', url: `/ttl/${key}`, payload: { ttl: 60 } })
    expect(set.statusCode).toBe(200)
    expect(set.json().ttl).toBeGreaterThan(59)
    expect(set.headers.etag).toBe(created.headers.etag)
    expect(await ttlOf(key)).toBeGreaterThan(59)
    expect(await redis.pTTL(app.keyPrefix + key)).toBeGreaterThan(59_000)
    expect((await app.inject({ method: 'DELETE', url: `/ttl/${key}` })).statusCode).toBe(204)
    expect(await ttlOf(key)).toBeNull()
    expect(await redis.pTTL(app.keyPrefix + key)).toBe(-1)
    expect((await get(app, `/docs/${key}`)).headers.etag).toBe(created.headers.etag)
  })

  it('never changes the ETag of a document written straight into Redis: reading its TTL, its metadata, or setting one', async () => {
    const key = uniqueKey()
    await redis.sendCommand(['JSON.SET', app.keyPrefix + key, '$', '{"a":1}'])
    const etag = (await get(app, `/docs/${key}`)).headers.etag
    expect(etag).toBe('"0"')
    expect(await ttlOf(key)).toBeNull()
    expect((await app.inject({ method: 'GET', url: `/meta/${key}` })).statusCode).toBe(200)
    expect((await get(app, `/docs/${key}`)).headers.etag).toBe(etag)
    const set = await app.inject({ method: 'PUT', url: `/ttl/${key}`, payload: { ttl: 60 }, headers: { 'if-match': etag! } })
    expect(set.statusCode).toBe(200)
    expect(set.headers.etag).toBe(etag)
    expect((await get(app, `/docs/${key}`)).headers.etag).toBe(etag)
    expect((await put(app, `/docs/${key}/a`, 2, { 'if-match': etag! })).statusCode).toBe(200)
  })

  it('honours If-Match, and is 404 for a missing document', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, 1)
    const stale = await app.inject({ method: 'PUT', url: `/ttl/${key}`, payload: { ttl: 5 }, headers: { 'if-match': '"1"' } })
    expect(stale.statusCode).toBe(412)
    expect(await ttlOf(key)).toBeNull()
    expect((await app.inject({ method: 'GET', url: `/ttl/${uniqueKey()}` })).statusCode).toBe(404)
    expect((await app.inject({ method: 'PUT', url: `/ttl/${key}`, payload: { ttl: -5 } })).statusCode).toBe(400)
  })
})
