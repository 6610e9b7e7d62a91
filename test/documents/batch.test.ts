import { describe, expect, it } from 'vitest'
import type { BatchReadItem } from '../../src/documents/store/reads.js'
import { scriptCalls, type ScriptCall } from '../../src/redis/lua-script.js'
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

  it('reads them in one script call, whatever the number of documents', async () => {
    const own = await startOwnRedis()
    const quiet = await buildTestApp({ redis: { socketPath: own.socketPath } })
    const keys = Array.from({ length: 100 }, () => uniqueKey())
    await Promise.all(keys.map((key) => put(quiet, `/docs/${key}`, { a: 1 })))
    const observer = createRedisClient({ connection: { socketPath: own.socketPath }, commandTimeoutMs: 5000 })
    await observer.connect()
    const calls = async () => new Map([...(await observer.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)]
      .map(([, name, count]) => [name!, Number(count)]))
    const before = await calls()
    const response = await quiet.inject({
      method: 'POST', url: '/batch/read', payload: JSON.stringify({ keys }), headers: { 'content-type': 'application/json' }
    })
    const after = await calls()
    await observer.close()
    expect(response.json().items).toHaveLength(100)
    const made = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0)
    // One FCALL, in which one MGET of the version records and one JSON.MGET of the values.
    expect([made('fcall'), made('mget'), made('json.mget'), made('get'), made('json.get'), made('type')]).toEqual([1, 1, 1, 0, 0, 0])
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
  it('continues across script calls, none answering more than MAX_REPLY_BYTES of values', async () => {
    const small = await buildTestApp({ limits: { documentBytes: 4096, replyBytes: 8192, workBytes: 1024 * 1024 } })
    const collection = uniqueKey('chunked')
    // A hash tag puts them in one slot on a cluster too: one call at a time.
    for (let index = 0; index < 10; index++) await put(small, `/docs/${collection}:{${collection}}${index}`, { index, pad: 'x'.repeat(3000) })
    const reads: number[] = []
    const listener = (message: unknown) => { if ((message as ScriptCall).name === 'read-many') reads.push(reads.length) }
    scriptCalls.subscribe(listener)
    try {
      // Registering a schema reads every document of the collection to report on them, a chunk at a time.
      const response = await small.inject({ method: 'PUT', url: `/schemas/${collection}`, payload: { type: 'object' } })
      expect(response.statusCode).toBe(201)
      expect(response.json().existingDocuments).toMatchObject({ checked: 10, violating: 0, complete: true })
    } finally {
      scriptCalls.unsubscribe(listener)
    }
    // About 3,030 bytes each: two fit in 8,192, a third would pass it.
    expect(reads).toHaveLength(5)
  })

  it('yields the documents in their order when the slots\' calls stop at different places', async () => {
    const small = await buildTestApp({ limits: { documentBytes: 4096, replyBytes: 8192, workBytes: 1024 * 1024 } })
    const [a, b] = [uniqueKey('a'), uniqueKey('b')]
    const keys = [0, 1, 2].flatMap((index) => [`x{${a}}${index}`, `x{${b}}${index}`])
    for (const [index, key] of keys.entries()) await put(small, `/docs/${key}`, { index, pad: 'x'.repeat(3000) })
    const chunks: BatchReadItem[][] = []
    for await (const chunk of small.documents.readChunks([...keys, uniqueKey('missing')], [])) chunks.push(chunk)
    const items = chunks.flat()
    expect(items.map((item) => [item.key, item.status === 200 ? JSON.parse(item.json).index : item.status]))
      .toEqual([...keys.map((key, index) => [key, index]), [expect.any(String), 404]])
    for (const chunk of chunks) {
      expect(chunk.reduce((bytes, item) => bytes + (item.status === 200 ? item.json.length : 0), 0)).toBeLessThanOrEqual(8192)
    }
  })

  it('answers each value with the version it was written with, while writes go on', async () => {
    const writer = await buildTestApp({ keyPrefix: app.keyPrefix })
    const key = uniqueKey('racing')
    const written = new Map<string, number>()
    let writing = true
    const writes = (async () => {
      for (let n = 0; n < 150; n++) written.set(String((await put(writer, `/docs/${key}`, { n })).headers.etag), n)
      writing = false
    })()
    const seen: Array<[string, number]> = []
    while (writing) {
      const [item] = (await post('/batch/read', { keys: [key] })).json().items
      if (item.status === 200) seen.push([item.etag, item.value.n])
    }
    await writes
    expect(seen.length).toBeGreaterThan(0)
    for (const [etag, n] of seen) expect([etag, written.get(etag)]).toEqual([etag, n])
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
