import { describe, expect, it } from 'vitest'
import { logOf } from '../../src/documents/store/context.js'
import { KEPT_CHANGES_SHARE, KEPT_CHANGES_SUFFIX } from '../../src/documents/scripts/prelude.js'
import { CHANGES_LOST } from '../../src/live/document-stream.js'
import { scriptCalls, type ScriptCall } from '../../src/redis/lua-script.js'
import { buildTestApp, connectRedis, get, put, send, uniqueKey } from '../helpers/app.js'
import { SseClient, until } from '../helpers/sse.js'

/** Entries carry changes of at most 256 bytes here. */
const app = await buildTestApp({ events: { maxLen: 1000, retentionMs: 60_000, feedMaxLen: 1000, maxEntryBytes: 256 } })
const redis = await connectRedis()
const long = 'x'.repeat(1000)
/** The bytes of changes kept beside a log here; 'ü' is two bytes. */
const KEPT_BYTES = KEPT_CHANGES_SHARE * 256

/** The fields of a document's last entry in the event log, as Redis holds them. */
async function lastEntry (key: string): Promise<string[]> {
  const reply = await redis.sendCommand<Array<[string, string[]]>>(['XREVRANGE', logOf(app, key), '+', '-'])
  return reply.find(([, fields]) => fields[fields.indexOf('k') + 1] === app.keyPrefix + key)![1]
}
const lastEntryFields = async (key: string) => (await lastEntry(key)).filter((_, index) => index % 2 === 0)
const lastEntryValue = async (key: string, field: string) => { const fields = await lastEntry(key); return fields[fields.indexOf(field) + 1] }
/** The stream of changes kept beside the log of key's document. */
const keptOf = (key: string) => logOf(app, key) + KEPT_CHANGES_SUFFIX

describe('a write whose changes are longer than EVENTS_MAX_ENTRY_BYTES', () => {
  it('keeps them beside the log, its entry naming them: a stream of a location it set sends its value, one elsewhere nothing, and nothing reads the document', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1, b: 'short' })
    const clients = await Promise.all(Array.from({ length: 5 }, () => SseClient.open(app, `/docs/${key}/a`)))
    const other = await SseClient.open(app, `/docs/${key}/b`)
    for (const client of [...clients, other]) await client.waitForCount(1)
    const calls: string[] = []
    const count = (call: unknown) => { calls.push((call as ScriptCall).name) }
    scriptCalls.subscribe(count)
    try {
      const big = await put(app, `/docs/${key}/a`, { long })
      expect(await lastEntryFields(key)).toEqual(['prev', 'k', 'p', 'v', 'o'])
      const [keptId, [, , , changes]] = (await redis.sendCommand<Array<[string, string[]]>>(['XREVRANGE', keptOf(key), '+', '-', 'COUNT', '1']))[0]!
      expect(await lastEntryValue(key, 'o')).toBe(keptId)
      expect(JSON.parse(changes!)).toEqual([{ op: 'replace', path: '/a', value: { long } }])
      for (const client of clients) {
        const [, event] = await client.waitForCount(2)
        expect(event).toMatchObject({ event: 'put', data: JSON.stringify({ value: { long }, etag: big.headers.etag }) })
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(other.events).toHaveLength(1)
      expect(calls.filter((name) => name === 'snapshot')).toEqual([])
    } finally {
      scriptCalls.unsubscribe(count)
    }
    // The stream goes on from there with the changes of the writes that fit.
    const small = await put(app, `/docs/${key}/a/n`, 1)
    expect(await lastEntryFields(key)).toEqual(['prev', 'k', 'p', 'v', 'c'])
    const [, , patched] = await clients[0]!.waitForCount(3)
    expect(JSON.parse(patched!.data)).toEqual({ patch: [{ op: 'add', path: '/n', value: 1 }], etag: small.headers.etag })
    // A stream resumed from before both, on the entries alone, sends what the steady ones sent.
    const resumed = await SseClient.open(app, `/docs/${key}/a?since=${clients[0]!.events[0]!.id}`)
    const events = await resumed.waitForCount(2)
    expect(events).toEqual(clients[0]!.events.slice(1, 3))
    for (const client of [...clients, other, resumed]) client.close()
  })

  it(`keeps them up to ${KEPT_CHANGES_SHARE} times EVENTS_MAX_ENTRY_BYTES in all, the latest whatever its length; a stream needing some no longer kept says reset`, async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 0 })
    const first = await SseClient.open(app, `/docs/${key}/a`)
    const [start] = await first.waitForCount(1)
    first.close()
    for (let step = 0; step < 200; step++) await put(app, `/docs/${key}/a`, `${step}`.padEnd(1000, 'é'))
    const kept = await redis.sendCommand<Array<[string, string[]]>>(['XRANGE', keptOf(key), '-', '+'])
    const bytes = kept.reduce((sum, [, fields]) => sum + Buffer.byteLength(fields[3]!), 0)
    expect(bytes).toBeLessThanOrEqual(KEPT_BYTES)
    expect(kept.length).toBeGreaterThan(5)
    // One write longer than all they may take: it alone is kept.
    const last = await put(app, `/docs/${key}/a`, 'ü'.repeat(KEPT_BYTES))
    expect(await redis.sendCommand(['XLEN', keptOf(key)])).toBe(1)
    expect(await redis.sendCommand<number>(['PTTL', keptOf(key)])).toBeGreaterThan(60_000)

    const resumed = await SseClient.open(app, `/docs/${key}/a`, { 'last-event-id': start!.id! })
    const [reset, value] = await resumed.waitForCount(2)
    expect(reset).toMatchObject({ event: 'reset', data: JSON.stringify({ reason: CHANGES_LOST }) })
    expect(value).toMatchObject({ event: 'put', data: JSON.stringify({ value: 'ü'.repeat(KEPT_BYTES), etag: last.headers.etag }) })
    resumed.close()
  })

  it('makes a prefix stream send what it changed as for any write, and `changed` (key and ETag: read the document) once they are no longer kept', async () => {
    const prefix = `${uniqueKey('big')}:`
    const client = await SseClient.open(app, `/docs?prefix=${encodeURIComponent(prefix)}`)
    await until(() => client.lastId !== undefined, 10_000, () => 'the stream sent no id')
    const start = client.lastId!
    const big = await put(app, `/docs/${prefix}{one}a`, { long })
    const batch = await send(app, 'POST', '/batch/write', JSON.stringify({ items: [{ key: `${prefix}{one}b`, value: [long] }, { key: `${prefix}{one}c`, value: 1 }] }))
    expect(batch.statusCode).toBe(200)
    const patched = await send(app, 'PATCH', `/docs/${prefix}{one}a`, JSON.stringify({ more: long }), { 'content-type': 'application/merge-patch+json' })
    expect(patched.statusCode).toBe(200)
    const events = await client.waitForCount(4)
    // The keys share a slot (their hash tag), and so a log, on a cluster too.
    const byKey = (a: [string, { key: string }], b: [string, { key: string }]) => a[1].key < b[1].key ? -1 : a[1].key > b[1].key ? 1 : 0
    const etagOf = async (key: string) => (await get(app, `/docs/${key}`)).headers.etag
    const told = events.map(({ event, data }): [string, { key: string }] => [event, JSON.parse(data)]).sort(byKey)
    expect(told).toEqual([
      ['put', { key: `${prefix}{one}a`, value: { long }, etag: big.headers.etag }],
      // A merge patch records the merged value at its location: here, the whole document.
      ['put', { key: `${prefix}{one}a`, value: { long, more: long }, etag: patched.headers.etag }],
      ['put', { key: `${prefix}{one}b`, value: [long], etag: await etagOf(`${prefix}{one}b`) }],
      ['put', { key: `${prefix}{one}c`, value: 1, etag: await etagOf(`${prefix}{one}c`) }]
    ])
    client.close()

    // A write longer than the log keeps changes of: a stream resumed from before it reads `changed` for the others.
    const longest = await put(app, `/docs/${prefix}{one}a`, { long: 'ü'.repeat(KEPT_BYTES) })
    const resumed = await SseClient.open(app, `/docs?prefix=${encodeURIComponent(prefix)}`, { 'last-event-id': start })
    const again = await resumed.waitForCount(5)
    expect(again.slice(0, 4).map(({ event, data }): [string, { key: string }] => [event, JSON.parse(data)]).sort(byKey)).toEqual([
      ['changed', { key: `${prefix}{one}a`, etag: big.headers.etag }],
      ['changed', { key: `${prefix}{one}a`, etag: patched.headers.etag }],
      ['changed', { key: `${prefix}{one}b`, etag: await etagOf(`${prefix}{one}b`) }],
      ['put', { key: `${prefix}{one}c`, value: 1, etag: await etagOf(`${prefix}{one}c`) }]
    ])
    expect(again[4]).toMatchObject({ event: 'put', data: JSON.stringify({ key: `${prefix}{one}a`, value: { long: 'ü'.repeat(KEPT_BYTES) }, etag: longest.headers.etag }) })
    resumed.close()
  })
})
