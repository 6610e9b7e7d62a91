import { describe, expect, it } from 'vitest'
import { applyChanges, type Change } from '../../src/live/changes.js'
import { derivedKeysOf, LOG_SUFFIX, logOf } from '../../src/documents/store/context.js'
import { buildTestApp, connectRedis, get, jsonPatch, operate, patch, put, remove, send, uniqueKey, versionKeyOf } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

/** An entry of a document in the event log: prev is the document's entry before it. */
interface Entry { id: string, prev: string, version: string, changes: Change[] }

type Target = Parameters<typeof logOf>[0]

async function entriesOf (target: Target, key: string): Promise<Entry[]> {
  const reply = await redis.sendCommand<Array<[string, string[]]>>(['XRANGE', logOf(target, key), '-', '+'])
  return reply.filter(([, fields]) => fields[fields.indexOf('k') + 1] === target.keyPrefix + key).map(([id, fields]) => {
    const field = (name: string) => fields[fields.indexOf(name) + 1]!
    return { id, prev: field('p'), version: field('v'), changes: JSON.parse(field('c')) as Change[] }
  })
}

/** The document the feed describes, replayed from nothing. */
function replay (entries: readonly Entry[]): unknown {
  let document: unknown
  for (const entry of entries) document = applyChanges(document, entry.changes)
  return document
}

async function expectReplayed (key: string): Promise<Entry[]> {
  const entries = await entriesOf(app, key)
  const response = await get(app, `/docs/${key}`)
  if (response.statusCode === 404) expect(replay(entries)).toBeUndefined()
  else {
    expect(replay(entries)).toEqual(response.json())
    expect(`"${entries.at(-1)!.version}"`).toBe(response.headers.etag)
  }
  return entries
}

describe('every write records its changes in the same step', () => {
  it('a replay of the feed is the document, whatever wrote it', async () => {
    const key = uniqueKey()
    const steps = [
      () => put(app, `/docs/${key}`, { a: { b: 1 }, list: [1, 2, 3], s: 'x', n: 1, t: true }),
      () => put(app, `/docs/${key}/a/b`, 2),
      () => put(app, `/docs/${key}/a/c`, { deep: [1] }),
      () => put(app, `/docs/${key}/list/1`, 'two'),
      () => patch(app, `/docs/${key}/a`, { b: null, d: 4 }),
      () => remove(app, `/docs/${key}/list/0`),
      () => remove(app, `/docs/${key}/a/d`),
      () => jsonPatch(app, `/docs/${key}`, [
        { op: 'add', path: '/list/0', value: 'first' },
        { op: 'add', path: '/list/-', value: 'last' },
        { op: 'move', from: '/list/1', path: '/moved' },
        { op: 'copy', from: '/a', path: '/copied' },
        { op: 'replace', path: '/s', value: 'y' },
        { op: 'test', path: '/s', value: 'y' },
        { op: 'remove', path: '/t' }
      ]),
      () => jsonPatch(app, `/docs/${key}/copied`, [{ op: 'add', path: '/x~1y', value: { '~': 1 } }]),
      () => operate(app, `/docs/${key}`, [
        { op: 'incr', path: '/n', by: 5 },
        { op: 'append', path: '/s', value: 'z' },
        { op: 'push', path: '/list', values: [7, 8] },
        { op: 'pop', path: '/list', index: 0 },
        { op: 'indexOf', path: '/list', value: 7 },
        { op: 'insert', path: '/list', index: 1, values: ['i'] },
        { op: 'trim', path: '/list', start: 0, stop: 2 },
        { op: 'clear', path: '/copied' }
      ]),
      () => operate(app, `/docs/${key}/n`, { op: 'mult', by: 2 }),
      () => send(app, 'POST', '/batch/write', JSON.stringify({ items: [{ key, value: { replaced: [true] } }, { key: uniqueKey(), value: 1 }] }))
    ]
    let count = 0
    for (const step of steps) {
      const response = await step()
      expect(response.statusCode, response.body).toBeLessThan(300)
      const entries = await expectReplayed(key)
      expect(entries).toHaveLength(++count)
    }
    const entries = await entriesOf(app, key)
    expect(entries[0]!.prev).toBe('0-0')
    entries.slice(1).forEach((entry, index) => expect(entry.prev).toBe(entries[index]!.id))
  })

  it('a whole document removed is one remove of the root, without a version', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    expect((await remove(app, `/docs/${key}`)).statusCode).toBe(204)
    const entries = await expectReplayed(key)
    expect(entries.at(-1)).toMatchObject({ version: '', changes: [{ op: 'remove', path: '' }] })
  })

  it('a document removed and written again goes on naming its entries before, while the log keeps them', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    await remove(app, `/docs/${key}`)
    const record = await redis.get(versionKeyOf(app.keyPrefix, key))
    const [removal] = (await entriesOf(app, key)).slice(-1)
    expect(record).toBe(`0::::${removal!.id}`)
    expect(await redis.pTTL(versionKeyOf(app.keyPrefix, key))).toBeGreaterThan(0)
    expect((await get(app, `/docs/${key}`)).statusCode).toBe(404)
    const created = await put(app, `/docs/${key}`, { b: 2 })
    expect(created.statusCode).toBe(201)
    expect(await redis.pTTL(versionKeyOf(app.keyPrefix, key))).toBe(-1)
    const entries = await expectReplayed(key)
    expect(entries.map((entry) => entry.prev)).toEqual(['0-0', entries[0]!.id, entries[1]!.id])
  })

  it('a write that fails or changes nothing records nothing', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1, list: [] })
    expect((await put(app, `/docs/${key}`, { a: 2 }, { 'if-match': '"1"' })).statusCode).toBe(412)
    expect((await jsonPatch(app, `/docs/${key}`, [{ op: 'add', path: '/b', value: 1 }, { op: 'test', path: '/a', value: 9 }])).statusCode).toBe(409)
    expect((await operate(app, `/docs/${key}`, [{ op: 'push', path: '/list', values: [1] }, { op: 'incr', path: '/a', by: 'x' }])).statusCode).toBeGreaterThanOrEqual(400)
    expect((await remove(app, `/docs/${key}/missing`)).statusCode).toBe(404)
    expect(await expectReplayed(key)).toHaveLength(1)
  })

  it('keeps the log bounded by EVENTS_FEED_MAXLEN (EVENTS_MAXLEN when that is 0), and records nothing at EVENTS_MAXLEN 0', async () => {
    const bounded = await buildTestApp({ events: { maxLen: 1000, retentionMs: 60_000, feedMaxLen: 10, maxEntryBytes: 16384 } })
    const key = uniqueKey()
    for (let index = 0; index < 150; index++) await put(bounded, `/docs/${key}`, { index })
    const entries = await entriesOf(bounded, key)
    expect(entries.length).toBeGreaterThanOrEqual(10)
    expect(entries.length).toBeLessThan(150)
    const ttl = await redis.sendCommand<number>(['PTTL', logOf(bounded, key)])
    expect(ttl).toBeGreaterThan(0)
    // Kept a retention past the end of the newest entry's quarter of it (see appendEntry).
    expect(ttl).toBeLessThanOrEqual(75_000)

    const byMaxLen = await buildTestApp({ events: { maxLen: 10, retentionMs: 60_000, feedMaxLen: 0, maxEntryBytes: 16384 } })
    for (let index = 0; index < 150; index++) await put(byMaxLen, `/docs/${key}`, { index })
    expect((await entriesOf(byMaxLen, key)).length).toBeLessThan(150)

    const off = await buildTestApp({ events: { maxLen: 0, retentionMs: 60_000, feedMaxLen: 100_000, maxEntryBytes: 16384 } })
    await put(off, `/docs/${key}`, { a: 1 })
    expect(await entriesOf(off, key)).toEqual([])
  }, 90_000)
})

describe.skipIf(app.redis.isCluster)('the namespace\'s event log', () => {
  it('holds every write\'s entry, naming its key, in the order of the writes, each naming the one before', async () => {
    const own = await buildTestApp({ events: { maxLen: 1000, retentionMs: 60_000, feedMaxLen: 1000, maxEntryBytes: 16384 } })
    const [a, b] = [uniqueKey(), uniqueKey()]
    await put(own, `/docs/${a}`, { n: 1 })
    await put(own, `/docs/${b}/x`, 1, {})
    await put(own, `/docs/${b}`, { x: 1 })
    await put(own, `/docs/${a}/n`, 2)
    expect((await put(own, `/docs/${a}/n`, 3, { 'if-match': '"1"' })).statusCode).toBe(412)
    await send(own, 'POST', '/batch/write', JSON.stringify({ items: [{ key: b, value: [] }] }))
    await remove(own, `/docs/${a}`)
    const feed = own.keyPrefix + LOG_SUFFIX
    const reply = await redis.sendCommand<Array<[string, string[]]>>(['XRANGE', feed, '-', '+'])
    const entries = reply.map(([id, fields]) => ({ id, ...Object.fromEntries(fields.flatMap((_, i) => i % 2 === 0 ? [[fields[i]!, fields[i + 1]!]] : [])) }) as Record<string, string>)
    expect(entries.map((entry) => [entry.k, JSON.parse(entry.c!)])).toEqual([
      [own.keyPrefix + a, [{ op: 'replace', path: '', value: { n: 1 } }]],
      [own.keyPrefix + b, [{ op: 'replace', path: '', value: { x: 1 } }]],
      [own.keyPrefix + a, [{ op: 'replace', path: '/n', value: 2 }]],
      [own.keyPrefix + b, [{ op: 'replace', path: '', value: [] }]],
      [own.keyPrefix + a, [{ op: 'remove', path: '' }]]
    ])
    expect(entries[0]!.prev).toBe('0-0')
    entries.slice(1).forEach((entry, index) => expect(entry.prev).toBe(entries[index]!.id))
    expect(await redis.sendCommand<number>(['PTTL', feed])).toBeGreaterThan(0)
    // Each names its document's entry before it too.
    expect(entries.map((entry) => entry.p)).toEqual(['0-0', '0-0', entries[0]!.id, entries[1]!.id, entries[2]!.id])
  })
})

describe.skipIf(!app.redis.isCluster)('the slot feeds of a Redis Cluster', () => {
  it('hold each write\'s entry, naming its key, in its document\'s slot, each naming the one before in that slot', async () => {
    const own = await buildTestApp({ events: { maxLen: 1000, retentionMs: 60_000, feedMaxLen: 1000, maxEntryBytes: 16384 } })
    const [a, b] = [uniqueKey(), uniqueKey()]
    await put(own, `/docs/${a}`, { n: 1 })
    await put(own, `/docs/${b}`, [1])
    await put(own, `/docs/${a}/n`, 2)
    await send(own, 'POST', '/batch/write', JSON.stringify({ items: [{ key: b, value: [] }] }))
    for (const [key, changes] of [
      [a, [[{ op: 'replace', path: '', value: { n: 1 } }], [{ op: 'replace', path: '/n', value: 2 }]]],
      [b, [[{ op: 'replace', path: '', value: [1] }], [{ op: 'replace', path: '', value: [] }]]]
    ] as const) {
      const feed = derivedKeysOf(own, key, [], [LOG_SUFFIX])[0]!
      const reply = await redis.sendCommand<Array<[string, string[]]>>(['XRANGE', feed, '-', '+'])
      const mine = reply.filter(([, fields]) => fields[fields.indexOf('k') + 1] === own.keyPrefix + key)
      expect(mine.map(([, fields]) => JSON.parse(fields[fields.indexOf('c') + 1]!))).toEqual(changes)
      reply.slice(1).forEach(([, fields], index) => expect(fields[fields.indexOf('prev') + 1]).toBe(reply[index]![0]))
    }
  })
})
