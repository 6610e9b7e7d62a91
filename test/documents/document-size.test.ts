import { describe, expect, it } from 'vitest'
import {
  buildTestApp, connectRedis, get, jsonPatch, operate, patch, put, send, uniqueKey, versionKeyOf
} from '../helpers/app.js'

const MAX = 2048
const app = await buildTestApp({ limits: { documentBytes: MAX, replyBytes: 8 * MAX, workBytes: 64 * MAX } })
const redis = await connectRedis()

const stored = (key: string) => redis.sendCommand<string | null>(['JSON.GET', app.keyPrefix + key])
const record = (key: string) => redis.get(versionKeyOf(app.keyPrefix, key))

/** A document of about `bytes` bytes of RedisJSON text: {"pad":"xxx..."}. */
function padded (bytes: number) {
  return { pad: 'x'.repeat(bytes - 10) }
}

function expectTooLarge (response: { statusCode: number, json: () => unknown }) {
  expect(response.statusCode).toBe(422)
  expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_DOCUMENT_BYTES', max: MAX })
}

/** Runs write against a document and proves it changed nothing: text, version record and ETag. */
async function refusedUnchanged (key: string, write: () => Promise<{ statusCode: number, json: () => unknown }>) {
  const [text, version, etag] = [await stored(key), await record(key), (await get(app, `/docs/${key}`)).headers.etag]
  expectTooLarge(await write())
  expect(await stored(key)).toBe(text)
  expect(await record(key)).toBe(version)
  expect((await get(app, `/docs/${key}`)).headers.etag).toBe(etag)
}

describe('MAX_DOCUMENT_BYTES bounds every document after any write', () => {
  it('refuses a whole document over the limit and writes nothing', async () => {
    const key = uniqueKey()
    expect((await put(app, `/docs/${key}`, padded(MAX))).statusCode).toBe(201)
    expectTooLarge(await put(app, `/docs/${uniqueKey()}`, padded(MAX + 1)))
    await refusedUnchanged(key, () => put(app, `/docs/${key}`, padded(MAX + 1)))
  })

  it('counts the text RedisJSON keeps, not the text sent: exponents written out, whitespace dropped', async () => {
    // 200 times "1e15," is 1 kB sent, and 3.8 kB as RedisJSON writes it (1000000000000000.0).
    const expanding = `[${Array(200).fill('1e15').join(',')}]`
    expectTooLarge(await send(app, 'PUT', `/docs/${uniqueKey()}`, expanding))
    const spacious = `{"pad": ${JSON.stringify('x'.repeat(1000))}${' '.repeat(5000)}}`
    const key = uniqueKey()
    expect((await send(app, 'PUT', `/docs/${key}`, spacious)).statusCode).toBe(201)
    expect((await stored(key))!.length).toBeLessThan(1100)
  })

  it('stops a document growing by parts at the write that would pass the limit', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { items: [] })
    let accepted = 0
    for (let round = 0; round < 100; round++) {
      const response = await operate(app, `/docs/${key}/items`, { op: 'push', values: ['y'.repeat(90)] })
      if (response.statusCode !== 200) {
        expectTooLarge(response)
        break
      }
      accepted++
    }
    expect(accepted).toBeGreaterThan(15)
    expect((await stored(key))!.length).toBeLessThanOrEqual(MAX)
    await refusedUnchanged(key, () => operate(app, `/docs/${key}/items`, { op: 'push', values: ['y'.repeat(90)] }))
    await refusedUnchanged(key, () => put(app, `/docs/${key}/more`, 'z'.repeat(200)))
    await refusedUnchanged(key, () => patch(app, `/docs/${key}`, { more: 'z'.repeat(200) }))
    await refusedUnchanged(key, () => operate(app, `/docs/${key}/items/0`, { op: 'append', value: 'z'.repeat(200) }))
    await refusedUnchanged(key, () => jsonPatch(app, `/docs/${key}`, [{ op: 'add', path: '/more', value: 'z'.repeat(200) }]))
    // Removing makes room again.
    expect((await operate(app, `/docs/${key}/items`, { op: 'trim', start: 0, stop: 3 })).statusCode).toBe(200)
    expect((await put(app, `/docs/${key}/more`, 'z'.repeat(200))).statusCode).toBe(201)
  })

  it('stops JSON Patch copies that double a document: 16 copies of the root from a 20-byte document', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 'twenty bytes' })
    const copies = Array.from({ length: 16 }, (_, index) => ({ op: 'copy', from: '', path: `/c${index}` }))
    await refusedUnchanged(key, () => jsonPatch(app, `/docs/${key}`, copies))
    expect(await redis.exists(`${app.keyPrefix}${key}\u001fcopy`)).toBe(0)
    expect(await redis.exists(`${app.keyPrefix}${key}\u001fwork`)).toBe(0)
    // A copy within the limit still applies.
    expect((await jsonPatch(app, `/docs/${key}`, [{ op: 'copy', from: '/a', path: '/b' }])).json())
      .toEqual({ a: 'twenty bytes', b: 'twenty bytes' })
  })

  it('measures a document written by another tool before growing it', async () => {
    const key = uniqueKey()
    await redis.sendCommand(['JSON.SET', app.keyPrefix + key, '$', JSON.stringify(padded(MAX - 100))])
    await refusedUnchanged(key, () => put(app, `/docs/${key}/more`, 'z'.repeat(200)))
    expect((await put(app, `/docs/${key}/more`, 'z'.repeat(20))).statusCode).toBe(201)
    expect(await record(key)).toMatch(/^\d+::\d+:/)
  })

  it('keeps a time to live through a write measured on a copy', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}?ttl=100`, padded(MAX - 300))
    expect((await put(app, `/docs/${key}/more`, 'z'.repeat(200))).statusCode).toBe(201)
    expect(await redis.pTTL(app.keyPrefix + key)).toBeGreaterThan(90_000)
    expect(await redis.pTTL(versionKeyOf(app.keyPrefix, key))).toBeGreaterThan(90_000)
  })

  it('refuses a batch item over the limit on its own, and writes the others', async () => {
    const [small, large] = [uniqueKey(), uniqueKey()]
    const response = await send(app, 'POST', '/batch/write', JSON.stringify({
      items: [{ key: small, value: { ok: true } }, { key: large, value: padded(MAX + 1) }]
    }))
    expect(response.statusCode).toBe(200)
    const [first, second] = response.json().items
    expect(first).toMatchObject({ key: small, status: 201 })
    expect(second).toMatchObject({ key: large, status: 422 })
    expect(second.errors[0].detail).toContain('MAX_DOCUMENT_BYTES')
    expect(await stored(large)).toBeNull()
    expect(await redis.exists(`${app.keyPrefix}\u001fbatch`)).toBe(0)
  })

  it('applies to documents of validated collections, previewed before they are validated', async () => {
    const collection = uniqueKey('sized')
    await send(app, 'PUT', `/schemas/${collection}`, JSON.stringify({ type: 'object' }))
    const key = `${collection}:1`
    await put(app, `/docs/${key}`, padded(MAX - 100))
    await refusedUnchanged(key, () => put(app, `/docs/${key}/more`, 'z'.repeat(200)))
  })
})

describe('MAX_WORK_BYTES bounds what one patch makes Redis do', () => {
  it('stops 30 doubling copies (148 GiB asked for) at the limit, in bounded time, writing nothing', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 'twenty bytes' })
    const copies = Array.from({ length: 30 }, (_, index) => ({ op: 'copy', from: '', path: `/c${index}` }))
    await refusedUnchanged(key, () => jsonPatch(app, `/docs/${key}`, copies))
  })

  it('refuses a patch whose tests would compare more text than the budget allows', async () => {
    const key = uniqueKey()
    const items = Array.from({ length: 150 }, (_, index) => index)
    await put(app, `/docs/${key}`, { items })
    // The same array, written with doubles: equal as RFC 6902 compares, not as text, so it needs parsing.
    const doubles = `[${items.map((item) => `${item}.0`).join(',')}]`
    const tests = `[${Array(300).fill(`{"op":"test","path":"/items","value":${doubles}}`).join(',')}]`
    const before = await stored(key)
    const response = await send(app, 'PATCH', `/docs/${key}`, tests, {}, 'application/json-patch+json')
    expect(response.statusCode).toBe(422)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_WORK_BYTES' })
    expect(await stored(key)).toBe(before)
    const one = `[{"op":"test","path":"/items","value":${doubles}},{"op":"add","path":"/ok","value":true}]`
    expect((await send(app, 'PATCH', `/docs/${key}`, one, {}, 'application/json-patch+json')).statusCode).toBe(200)
  })

  it('compares byte-identical values without parsing them: the text counts once, not as parsed text', async () => {
    const key = uniqueKey()
    const items = Array.from({ length: 150 }, (_, index) => index)
    await put(app, `/docs/${key}`, { items })
    // 50 tests of 600-byte values: 60 kB of text, within the 128 kB budget; parsed, they would cost 64 times that.
    const tests = Array(50).fill({ op: 'test', path: '/items', value: items })
    expect((await jsonPatch(app, `/docs/${key}`, tests)).statusCode).toBe(200)
  })
})

describe('members reached through their parent\'s text', () => {
  it('are refused rather than walked when the parent is larger than the work limit allows, for reads and writes', async () => {
    const tight = await buildTestApp({ limits: { documentBytes: 1024 * 1024, replyBytes: 4 * 1024 * 1024, workBytes: 64 * 1024 } })
    const key = uniqueKey()
    const parent = Object.fromEntries(Array.from({ length: 400 }, (_, index) => [`m${index}`, { v: [index, 'x'.repeat(10)] }]))
    await put(tight, `/docs/${key}`, { small: { 'a\\b': 1 }, large: { ...parent, 'a\\b': 1 } })
    const tightRedis = (text: string) => redis.sendCommand<string | null>(['JSON.GET', tight.keyPrefix + key]).then((now) => now === text)
    const before = (await redis.sendCommand<string>(['JSON.GET', tight.keyPrefix + key]))!
    // Reads reach such a member by its escaped path step; writes and names starting with a space need the walk.
    expect((await get(tight, `/docs/${key}/large/a%5Cb`)).json()).toBe(1)
    for (const response of [
      await get(tight, `/docs/${key}/large/%20lead`),
      await put(tight, `/docs/${key}/large/a%5Cb`, 2),
      await tight.inject({ method: 'DELETE', url: `/docs/${key}/large/a%5Cb` }),
      await jsonPatch(tight, `/docs/${key}`, [{ op: 'replace', path: '/large/a\\b', value: 3 }])
    ]) {
      expect(response.statusCode).toBe(422)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_WORK_BYTES' })
    }
    expect(await tightRedis(before)).toBe(true)
    for (const suffix of ['\u001fcopy', '\u001fwork', '\u001fscratch']) {
      expect(await redis.exists(`${tight.keyPrefix}${key}${suffix}`)).toBe(0)
    }
    expect((await get(tight, `/docs/${key}/small/a%5Cb`)).json()).toBe(1)
    expect((await put(tight, `/docs/${key}/small/a%5Cb`, 2)).statusCode).toBe(200)
  })
})

describe('deep pointers', () => {
  it('cost a patch of 1000 operations on 100-token pointers a bounded amount of work', async () => {
    // RedisJSON parses each step's path anew: resolving 99 digit tokens costs about 235 kB of the budget.
    const app = await buildTestApp({ limits: { documentBytes: 1024 * 1024, replyBytes: 4 * 1024 * 1024, workBytes: 2 * 1024 * 1024 } })
    const key = uniqueKey()
    let nested: unknown = 1
    for (let level = 0; level < 99; level++) nested = [nested]
    await put(app, `/docs/${key}`, nested)
    const pointer = '/0'.repeat(99)
    const tests = Array.from({ length: 1000 }, () => ({ op: 'test', path: pointer, value: 1 }))
    const response = await jsonPatch(app, `/docs/${key}`, tests)
    expect(response.statusCode).toBe(422)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_WORK_BYTES' })
    expect((await jsonPatch(app, `/docs/${key}`, tests.slice(0, 5))).statusCode).toBe(200)
    expect((await get(app, `/docs/${key}${pointer}`)).json()).toBe(1)
  })
})
