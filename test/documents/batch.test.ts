import { describe, expect, it } from 'vitest'
import { chunksWithin, type BatchReadItem } from '../../src/documents/store/reads.js'
import { createRedisClient } from '../../src/redis/plugin.js'
import { buildTestApp, connectRedis, get, onEveryMaster, put, uniqueKey } from '../helpers/app.js'
import { startOwnRedis } from '../helpers/local-redis.js'

const app = await buildTestApp()
const redis = await connectRedis()

function post (url: string, body: unknown) {
  return app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
}

describe('POST /batch/read', () => {
  it('reads 100 documents in one request, each with its status and ETag', async () => {
    const keys = Array.from({ length: 100 }, (_, index) => uniqueKey(`batch${index}`))
    await Promise.all(keys.map((key, index) => put(app, `/docs/${key}`, { index, tags: ['t'] })))
    const missing = uniqueKey('missing')
    const response = await post('/batch/read', { keys: [...keys, missing] })
    expect(response.statusCode).toBe(200)
    const { items } = response.json()
    expect(items).toHaveLength(101)
    items.slice(0, 100).forEach((item: { key: string, status: number, value: unknown, etag: string }, index: number) => {
      expect(item).toMatchObject({ key: keys[index], status: 200, value: { index, tags: ['t'] } })
      expect(item.etag).toMatch(/^"\d+"$/)
    })
    expect(items[100]).toEqual({ key: missing, status: 404 })
  })

  it('sends a bounded number of Redis commands, whatever the number of documents', async () => {
    const own = await startOwnRedis()
    const quiet = await buildTestApp({ redis: { socketPath: own.socketPath } })
    const keys = Array.from({ length: 100 }, () => uniqueKey())
    await Promise.all(keys.map((key) => put(quiet, `/docs/${key}`, { a: 1 })))
    const observer = createRedisClient({ connection: { socketPath: own.socketPath }, commandTimeoutMs: 5000 })
    await observer.connect()
    const processed = async () => Number(/total_commands_processed:(\d+)/.exec(await observer.info('stats'))![1])
    const before = await processed()
    const response = await quiet.inject({
      method: 'POST', url: '/batch/read', payload: JSON.stringify({ keys }), headers: { 'content-type': 'application/json' }
    })
    const commands = await processed() - before
    await observer.close()
    expect(response.json().items).toHaveLength(100)
    // MGET and JSON.MGET in one pipeline, plus this test's own INFO; a loop over documents would be 100+.
    expect(commands).toBe(3)
  })

  it('reads one location in each document, digits on arrays and objects alike', async () => {
    const [a, b, c] = [uniqueKey(), uniqueKey(), uniqueKey()]
    await put(app, `/docs/${a}`, { list: ['a0'] })
    await put(app, `/docs/${b}`, { list: { 0: 'b0' } })
    await put(app, `/docs/${c}`, { other: true })
    const { items } = (await post('/batch/read', { keys: [a, b, c], pointer: '/list/0' })).json()
    expect(items.map((item: { status: number, value?: unknown }) => [item.status, item.value]))
      .toEqual([[200, 'a0'], [200, 'b0'], [404, undefined]])
  })

  it('keeps exact digits and reports keys that are not documents as 409', async () => {
    const [big, plain] = [uniqueKey(), uniqueKey()]
    await app.inject({ method: 'PUT', url: `/docs/${big}`, payload: '{"n":12345678901234567890}', headers: { 'content-type': 'application/json' } })
    await redis.set(app.keyPrefix + plain, 'not json')
    const response = await post('/batch/read', { keys: [big, plain] })
    expect(response.body).toContain('"value":{"n":12345678901234567890}')
    expect(response.json().items[1]).toEqual({ key: plain, status: 409 })
  })

  it('refuses malformed requests', async () => {
    for (const body of [{}, { keys: [] }, { keys: [''] }, { keys: ['a'], pointer: 'x' }, { keys: Array(1001).fill('k') }]) {
      expect((await post('/batch/read', body)).statusCode).toBe(400)
    }
  })
})

describe('POST /batch/write', () => {
  it('writes many documents in one request with a result per item', async () => {
    const [fresh, existing, guarded, plain] = [uniqueKey(), uniqueKey(), uniqueKey(), uniqueKey()]
    await put(app, `/docs/${existing}`, { old: true })
    await put(app, `/docs/${guarded}`, { old: true })
    await redis.set(app.keyPrefix + plain, 'not json')
    const response = await app.inject({
      method: 'POST',
      url: '/batch/write',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        items: [
          { key: fresh, value: { n: 1 }, ifNoneMatch: '*' },
          { key: existing, value: [1, 2] },
          { key: guarded, value: 'lost', ifMatch: '"1"' },
          { key: plain, value: 1 }
        ]
      }).replace('{"n":1}', '{"n":12345678901234567890}')
    })
    expect(response.statusCode).toBe(200)
    const { items } = response.json()
    expect(items.map((item: { status: number }) => item.status)).toEqual([201, 200, 412, 409])
    expect(items[0].etag).toMatch(/^"\d+"$/)
    expect((await get(app, `/docs/${fresh}`)).body).toBe('{"n":12345678901234567890}')
    expect((await get(app, `/docs/${existing}`)).json()).toEqual([1, 2])
    expect((await get(app, `/docs/${guarded}`)).json()).toEqual({ old: true })
    expect((await get(app, `/docs/${fresh}`)).headers.etag).toBe(items[0].etag)
  })

  it('refuses the whole batch when an item is malformed, writing nothing', async () => {
    const key = uniqueKey()
    const response = await post('/batch/write', { items: [{ key, value: 1 }, { key: '', value: 2 }] })
    expect(response.statusCode).toBe(400)
    expect((await get(app, `/docs/${key}`)).statusCode).toBe(404)
  })
})

describe('MAX_REPLY_BYTES bounds a batch read', () => {
  it('refuses values that add up past the limit, and reads small locations of large documents in chunks', async () => {
    const small = await buildTestApp({ limits: { documentBytes: 4096, replyBytes: 8192, workBytes: 1024 * 1024 } })
    const keys = Array.from({ length: 10 }, () => uniqueKey())
    for (const key of keys) await put(small, `/docs/${key}`, { name: key, pad: 'x'.repeat(3000) })
    const whole = await small.inject({ method: 'POST', url: '/batch/read', payload: { keys } })
    expect(whole.statusCode).toBe(422)
    expect(whole.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_REPLY_BYTES', max: 8192 })
    const names = await small.inject({ method: 'POST', url: '/batch/read', payload: { keys, pointer: '/name' } })
    expect(names.statusCode).toBe(200)
    expect(names.json().items.map((item: { value: string }) => item.value)).toEqual(keys)
  })
})

describe('reading many documents in chunks', () => {
  it('yields them in their order, no chunk holding more than MAX_REPLY_BYTES of values', async () => {
    const small = await buildTestApp({ limits: { documentBytes: 4096, replyBytes: 8192, workBytes: 1024 * 1024 } })
    const [a, b] = [uniqueKey('a'), uniqueKey('b')]
    // Two hash slots on a cluster, interleaved.
    const keys = [0, 1, 2].flatMap((index) => [`x{${a}}${index}`, `x{${b}}${index}`])
    for (const [index, key] of keys.entries()) await put(small, `/docs/${key}`, { index, pad: 'x'.repeat(3000) })
    const chunks: BatchReadItem[][] = []
    for await (const chunk of small.documents.readChunks([...keys, uniqueKey('missing')], [])) chunks.push(chunk)
    expect(chunks.flat().map((item) => [item.key, item.status === 200 ? JSON.parse(item.json).index : item.status]))
      .toEqual([...keys.map((key, index) => [key, index]), [expect.any(String), 404]])
    // About 3,030 bytes each: two fit in 8,192, a third would pass it.
    expect(chunks.map((chunk) => chunk.length)).toEqual([2, 2, 2, 1])
    for (const chunk of chunks) {
      expect(chunk.reduce((bytes, item) => bytes + (item.status === 200 ? item.json.length : 0), 0)).toBeLessThanOrEqual(8192)
    }
  })
})

describe('chunksWithin', () => {
  it.each([
    [[], 10, []],
    [[3, 3, 3], 10, [[0, 3]]],
    [[6, 6, 6], 10, [[0, 1], [1, 2], [2, 3]]],
    [[20, 1, 1], 10, [[0, 1], [1, 3]]],
    [[1, 1, 20, 1], 10, [[0, 2], [2, 3], [3, 4]]]
  ])('splits bounds %j within %d as %j', (bounds, budget, chunks) => {
    expect(chunksWithin(bounds, budget)).toEqual(chunks)
  })
})

describe('a large batch write', () => {
  it('costs Redis time in proportion to its items, with the client-side cache on', async () => {
    const cached = await buildTestApp({ cacheMaxEntries: 1000 })
    const redis = await connectRedis()
    const timeOf = async (count: number) => {
      const items = Array.from({ length: count }, () => ({ key: uniqueKey(), value: { name: 'Ann' } }))
      await cached.inject({ method: 'POST', url: '/batch/write', payload: { items: items.slice(0, 1) } })
      const before = await scriptMicroseconds(redis)
      expect((await cached.inject({ method: 'POST', url: '/batch/write', payload: { items } })).statusCode).toBe(200)
      return (await scriptMicroseconds(redis)) - before
    }
    // Other test files run scripts on the same Redis at the same time, which only ever adds: the least of three.
    const leastOf = async (count: number) => Math.min(await timeOf(count), await timeOf(count), await timeOf(count))
    // Tracking that remembered every declared key per read made this quadratic: 40 times for 10 times the items.
    const [small, large] = [await leastOf(100), await leastOf(1000)]
    expect(large).toBeLessThan(small * 25)
  })
})

async function scriptMicroseconds (redis: Awaited<ReturnType<typeof connectRedis>>): Promise<number> {
  const stats = (await onEveryMaster<string>(redis, ['INFO', 'commandstats'])).join('\n')
  return [...stats.matchAll(/cmdstat_fcall:calls=\d+,usec=(\d+)/g)].reduce((sum, [, usec]) => sum + Number(usec), 0)
}
