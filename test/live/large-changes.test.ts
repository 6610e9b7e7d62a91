import { describe, expect, it } from 'vitest'
import { logOf } from '../../src/documents/store/context.js'
import { scriptCalls, type ScriptCall } from '../../src/redis/lua-script.js'
import { buildTestApp, connectRedis, get, put, send, uniqueKey } from '../helpers/app.js'
import { SseClient, until } from '../helpers/sse.js'

/** Entries carry changes of at most 256 bytes here. */
const app = await buildTestApp({ events: { maxLen: 1000, retentionMs: 60_000, feedMaxLen: 1000, maxEntryBytes: 256 } })
const redis = await connectRedis()
const long = 'x'.repeat(1000)

/** The fields of a document's last entry in the event log, as Redis holds them. */
async function lastEntryFields (key: string): Promise<string[]> {
  const reply = await redis.sendCommand<Array<[string, string[]]>>(['XREVRANGE', logOf(app, key), '+', '-'])
  const [, fields] = reply.find(([, fields]) => fields[fields.indexOf('k') + 1] === app.keyPrefix + key)!
  return fields.filter((_, index) => index % 2 === 0)
}

describe('a write whose changes are longer than EVENTS_MAX_ENTRY_BYTES', () => {
  it('is recorded without them; a document stream sends the value read after it, once read for all its subscribers', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1, b: 'short' })
    const clients = await Promise.all(Array.from({ length: 5 }, () => SseClient.open(app, `/docs/${key}/a`)))
    const other = await SseClient.open(app, `/docs/${key}/b`)
    for (const client of [...clients, other]) await client.waitForCount(1)
    const snapshots: ScriptCall[] = []
    const count = (call: unknown) => { if ((call as ScriptCall).name === 'snapshot') snapshots.push(call as ScriptCall) }
    scriptCalls.subscribe(count)
    try {
      const big = await put(app, `/docs/${key}/a`, { long })
      expect(await lastEntryFields(key)).toEqual(['prev', 'k', 'p', 'v', 'o'])
      for (const client of clients) {
        const [, event] = await client.waitForCount(2)
        expect(event).toMatchObject({ event: 'put', data: JSON.stringify({ value: { long }, etag: big.headers.etag }) })
      }
      // A location the write did not touch is read again too (the entry does not say what it changed), and
      // sends nothing: its value is the one it had.
      await until(() => snapshots.length === 2, 10_000, () => `${snapshots.length} of 2 locations read again`)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(other.events).toHaveLength(1)
    } finally {
      scriptCalls.unsubscribe(count)
    }
    // The stream goes on from there with the changes of the writes that fit.
    const small = await put(app, `/docs/${key}/a/n`, 1)
    expect(await lastEntryFields(key)).toEqual(['prev', 'k', 'p', 'v', 'c'])
    const [, , patched] = await clients[0]!.waitForCount(3)
    expect(JSON.parse(patched!.data)).toEqual({ patch: [{ op: 'add', path: '/n', value: 1 }], etag: small.headers.etag })
    for (const client of [...clients, other]) client.close()
  })

  it('makes a prefix stream send `changed` with the key and ETag: the client reads the document', async () => {
    const prefix = `${uniqueKey('big')}:`
    const client = await SseClient.open(app, `/docs?prefix=${encodeURIComponent(prefix)}`)
    await until(() => client.lastId !== undefined, 10_000, () => 'the stream sent no id')
    const big = await put(app, `/docs/${prefix}a`, { long })
    const batch = await send(app, 'POST', '/batch/write', JSON.stringify({ items: [{ key: `${prefix}b`, value: [long] }, { key: `${prefix}c`, value: 1 }] }))
    expect(batch.statusCode).toBe(200)
    const events = await client.waitForCount(3)
    // On a cluster the three keys may sit in different slots, whose events are not ordered among each other.
    const byKey = (a: [string, { key: string }], b: [string, { key: string }]) => a[1].key < b[1].key ? -1 : 1
    expect(events.map(({ event, data }): [string, { key: string }] => [event, JSON.parse(data)]).sort(byKey)).toEqual([
      ['changed', { key: `${prefix}a`, etag: big.headers.etag }],
      ['changed', { key: `${prefix}b`, etag: (await get(app, `/docs/${prefix}b`)).headers.etag }],
      ['put', { key: `${prefix}c`, value: 1, etag: (await get(app, `/docs/${prefix}c`)).headers.etag }]
    ])
    client.close()
  })
})
