import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, get, jsonPatch, operate, patch, put, remove, send, uniqueKey } from '../helpers/app.js'
import { applyPatch, expectFullThenShutdown, SseClient, until, type SseEvent } from '../helpers/sse.js'
import { inOneWindow } from '../helpers/window.js'
import { expectWriteOrder } from '../helpers/write-order.js'
import { CLUSTER_POLL_MS, SLOT_FEEDS_PER_CALL } from '../../src/live/cluster-feed.js'
import { CATCH_UP_WINDOW_MS, TOO_FAR } from '../../src/live/catch-up.js'
import { compareIds } from '../../src/live/feed.js'
import { scriptCalls, type ScriptCall } from '../../src/redis/lua-script.js'
import { tagOfSlot } from '../../src/redis/slots.js'

const app = await buildTestApp()
const onCluster = app.redis.isCluster

type Json = Parameters<typeof applyPatch>[0]

/** What a subscriber of a prefix holds after each event: every document it was told of, with its ETag. */
class PrefixSubscriber {
  readonly documents = new Map<string, { value: Json, etag: string }>()
  readonly seen: string[] = []
  readonly kinds: string[] = []

  apply (event: SseEvent): void {
    this.kinds.push(event.event)
    if (event.event === 'reset' || event.event === 'end') return
    this.seen.push(event.id!)
    const data = JSON.parse(event.data) as { key: string, value?: Json, patch?: Parameters<typeof applyPatch>[1], etag?: string }
    if (event.event === 'delete') this.documents.delete(data.key)
    else if (event.event === 'put') this.documents.set(data.key, { value: data.value!, etag: data.etag! })
    else this.documents.set(data.key, { value: applyPatch(this.documents.get(data.key)!.value, data.patch!), etag: data.etag! })
  }
}

/** Every document under prefix as the service holds it, keys among those written. */
async function storedUnder (instance: FastifyInstance, keys: readonly string[]) {
  const held = new Map<string, { value: Json, etag: string }>()
  for (const key of keys) {
    const response = await get(instance, `/docs/${encodeURIComponent(key)}`)
    if (response.statusCode === 200) held.set(key, { value: response.json(), etag: String(response.headers.etag) })
  }
  return held
}

/** The shape of an event id: on a cluster, it names the slot of the entry too. */
const EVENT_ID = onCluster ? /^\d+-\d+-\d+$/ : /^\d+-\d+$/

const streamUrl = (prefix: string, query = '') => `/docs?prefix=${encodeURIComponent(prefix)}${query}`

/** Opens a prefix stream and waits until it has said where it starts (its first id). */
async function openPrefix (instance: FastifyInstance, prefix: string, headers: Record<string, string> = {}, query = '') {
  const client = await SseClient.open(instance, streamUrl(prefix, query), headers)
  await until(() => client.lastId !== undefined || client.ended, 10_000, () => 'the stream sent no id')
  return client
}

describe('a live stream of a key prefix', () => {
  it('sends an event per write under the prefix, naming its key, and nothing for other keys', async () => {
    const prefix = `${uniqueKey('p')}:`
    const [a, b] = [`${prefix}a`, `${prefix}b`]
    const elsewhere = `${uniqueKey('q')}:a`
    const client = await openPrefix(app, prefix)
    expect(client.status).toBe(200)
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(client.events).toEqual([])

    const created = await put(app, `/docs/${a}`, { n: 1, list: [], note: 'a document long enough that a patch of one member is shorter than its whole value' })
    await put(app, `/docs/${elsewhere}`, { n: 1 })
    const member = await put(app, `/docs/${a}/n`, 2)
    const pushed = await operate(app, `/docs/${a}/list`, { op: 'push', values: ['x'] })
    await send(app, 'POST', '/batch/write', JSON.stringify({ items: [{ key: b, value: [1] }, { key: elsewhere, value: 2 }] }))
    expect((await remove(app, `/docs/${a}`)).statusCode).toBe(204)
    const events = await client.waitForCount(5)
    const ids = events.map((event) => event.id!)
    expectWriteOrder(events.map(({ event, data }) => [event, JSON.parse(data)]), [
      ['put', { key: a, value: { n: 1, list: [], note: 'a document long enough that a patch of one member is shorter than its whole value' }, etag: created.headers.etag }],
      ['patch', { key: a, patch: [{ op: 'replace', path: '/n', value: 2 }], etag: member.headers.etag }],
      ['patch', { key: a, patch: [{ op: 'replace', path: '/list', value: ['x'] }], etag: pushed.headers.etag }],
      ['put', { key: b, value: [1], etag: (await get(app, `/docs/${b}`)).headers.etag }],
      ['delete', { key: a }]
    ], { keyOf: ([, data]) => (data as { key: string }).key, ids, onCluster })
    expect(ids.every((id) => EVENT_ID.test(id))).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    await put(app, `/docs/${elsewhere}`, { n: 3 })
    await put(app, `/docs/${b}`, 'last')
    await client.waitForCount(6)
    expect(client.events).toHaveLength(6)
  })

  it('reproduces every document under the prefix, under concurrent writers on two instances', async () => {
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const prefix = `${uniqueKey('c')}:`
    const keys = [0, 1, 2].map((index) => `${prefix}${index}`)
    const client = await openPrefix(other, prefix)
    const writers = [app, other].flatMap((instance, side) => [0, 1].map(async (writer) => {
      for (let step = 0; step < 20; step++) {
        const key = keys[(side + writer + step) % keys.length]!
        const which = (side * 2 + writer + step) % 5
        if (which === 0) await put(instance, `/docs/${key}`, { n: step, list: [], tags: {} })
        else if (which === 1) await operate(instance, `/docs/${key}/list`, { op: 'push', values: [step] })
        else if (which === 2) await patch(instance, `/docs/${key}/tags`, { [`t${step % 3}`]: step % 2 === 0 ? step : null })
        else if (which === 3) await jsonPatch(instance, `/docs/${key}`, [{ op: 'replace', path: '/n', value: side }])
        else if (step % 4 === 0) await remove(instance, `/docs/${key}`)
      }
    }))
    await Promise.all(writers)
    const expected = await storedUnder(app, keys)
    const subscriber = new PrefixSubscriber()
    let applied = 0
    await until(() => {
      for (; applied < client.events.length; applied++) subscriber.apply(client.events[applied]!)
      return JSON.stringify([...subscriber.documents].sort()) === JSON.stringify([...expected].sort())
    }, 10_000, () => `the subscriber holds ${JSON.stringify([...subscriber.documents])}, the service ${JSON.stringify([...expected])}`)
    expect(new Set(subscriber.seen).size).toBe(subscriber.seen.length)
  })
})

describe('resuming a prefix stream', () => {
  it('after drops at random points, on either instance, gets exactly the missed events', async () => {
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const instances = [app, other]
    let seed = 7
    const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
    const prefix = `${uniqueKey('r')}:`
    const keys = [0, 1, 2, 3].map((index) => `${prefix}${index}`)
    const followers = await Promise.all([0, 1, 2].map(async (index) => ({
      client: await openPrefix(instances[index % 2]!, prefix), subscriber: new PrefixSubscriber(), applied: 0
    })))
    const catchUp = (follower: typeof followers[number]) => {
      for (; follower.applied < follower.client.events.length; follower.applied++) follower.subscriber.apply(follower.client.events[follower.applied]!)
    }
    let writing = true
    const writers = instances.map(async (instance, side) => {
      for (let step = 0; step < 40; step++) {
        const key = keys[(side + step) % keys.length]!
        if (step % 7 === 3) await remove(instance, `/docs/${key}`)
        else if (step % 3 === 0) await put(instance, `/docs/${key}`, { side, step, list: [] })
        else await put(instance, `/docs/${key}/s${side}`, step)
      }
    })
    const droppers = followers.map(async (follower) => {
      while (writing) {
        await new Promise((resolve) => setTimeout(resolve, 20 + random() * 80))
        follower.client.close()
        catchUp(follower)
        const resume = follower.client.lastId!
        const instance = instances[Math.floor(random() * 2)]!
        follower.client = random() < 0.5
          ? await openPrefix(instance, prefix, { 'last-event-id': resume })
          : await openPrefix(instance, prefix, {}, `&since=${resume}`)
        follower.applied = 0
      }
    })
    await Promise.all(writers)
    writing = false
    await Promise.all(droppers)
    const expected = await storedUnder(app, keys)
    for (const follower of followers) {
      await until(() => {
        catchUp(follower)
        return JSON.stringify([...follower.subscriber.documents].sort()) === JSON.stringify([...expected].sort())
      }, 10_000, () => `a follower holds ${JSON.stringify([...follower.subscriber.documents])}, the service ${JSON.stringify([...expected])}`)
      expect(follower.subscriber.kinds).not.toContain('reset')
      expect(new Set(follower.subscriber.seen).size).toBe(follower.subscriber.seen.length)
    }
  })

  it('from an id past the retention, or after events were trimmed: reset telling the client to reload, then on from now', async () => {
    const small = await buildTestApp({ events: { maxLen: 1000, retentionMs: 60_000, feedMaxLen: 5, maxEntryBytes: 16384 } })
    const prefix = `${uniqueKey('g')}:`
    const old = await openPrefix(small, prefix, { 'last-event-id': '1000-0' })
    await old.waitForCount(1)
    expect(old.events[0]).toMatchObject({ event: 'reset' })
    expect(JSON.parse(old.events[0]!.data)).toMatchObject({ reload: true })
    expect(old.events[0]!.id).toMatch(EVENT_ID)
    await put(small, `/docs/${prefix}x`, 1)
    await old.waitForCount(2)
    expect(old.events[1]).toMatchObject({ event: 'put', data: JSON.stringify({ key: `${prefix}x`, value: 1, etag: (await get(small, `/docs/${prefix}x`)).headers.etag }) })

    const first = await openPrefix(small, prefix)
    await put(small, `/docs/${prefix}y`, 0)
    await first.waitForCount(1)
    first.close()
    for (let step = 1; step <= 250; step++) await put(small, `/docs/${prefix}y`, step)
    const resumed = await openPrefix(small, prefix, { 'last-event-id': first.lastId! })
    await resumed.waitForCount(1)
    expect(resumed.events[0]).toMatchObject({ event: 'reset' })
    expect(JSON.parse(resumed.events[0]!.data)).toMatchObject({ reload: true })
    await put(small, `/docs/${prefix}y`, 'after')
    await resumed.waitFor((event) => event.event === 'put' && JSON.parse(event.data).value === 'after')
    expect(resumed.events.slice(1).map((event) => JSON.parse(event.data).value)).toEqual(['after'])
  })

  it.skipIf(onCluster)('catching up far behind: reads beyond the first are charged to the credentials, past STREAM_CATCH_UP_READS a reset', async () => {
    await inOneWindow(CATCH_UP_WINDOW_MS, async () => {
      const budgeted = await buildTestApp({ streams: { heartbeatMs: 15_000, max: 100, ticketTtlMs: 60_000, catchUpReads: 2 } })
      const prefix = `${uniqueKey('c')}:`
      const first = await openPrefix(budgeted, prefix)
      const start = first.lastId!
      first.close()
      const items = Array.from({ length: 350 }, (_, index) => ({ key: `${prefix}${String(index).padStart(3, '0')}`, value: index }))
      expect((await send(budgeted, 'POST', '/batch/write', JSON.stringify({ items }))).statusCode).toBe(200)
      // Pages of 100: the first is free, two more are charged, the fourth is refused.
      const far = await openPrefix(budgeted, prefix, { 'last-event-id': start })
      const reset = await far.waitFor((event) => event.event === 'reset')
      expect(JSON.parse(reset.data)).toEqual({ reason: TOO_FAR, reload: true })
      expect(far.events.slice(0, -1).map((event) => JSON.parse(event.data).value)).toEqual(items.slice(0, 300).map((item) => item.value))
      // The budget is the credentials', not the connection's: the next catch-up gets its free page only.
      const again = await openPrefix(budgeted, prefix, { 'last-event-id': start })
      await again.waitFor((event) => event.event === 'reset')
      expect(again.events.filter((event) => event.event === 'put')).toHaveLength(100)
      // A stream resuming less than a page behind costs nothing, budget spent or not.
      const near = await openPrefix(budgeted, prefix, { 'last-event-id': far.events[299]!.id! })
      await near.waitForCount(50)
      expect(near.events.map((event) => event.event)).toEqual(Array(50).fill('put'))
      for (const client of [far, again, near]) client.close()
    })
  })

  // On one Redis a position is an entry of the feed (another is a gap: reset); on a cluster, any position is exact.
  it.skipIf(!onCluster)('from long before its writes, on a cluster (reads widening across quiet spans): them all, in order, once', async () => {
    const prefix = `${uniqueKey('w')}:`
    const first = await openPrefix(app, prefix)
    await put(app, `/docs/${prefix}a`, 1)
    await put(app, `/docs/${prefix}b`, 2)
    await put(app, `/docs/${prefix}a`, 3)
    const written = await first.waitForCount(3)
    first.close()
    const ms = Number(written[0]!.id!.split('-')[0]) - 20_000
    const resumed = await openPrefix(app, prefix, { 'last-event-id': `${ms}-0-0` })
    await resumed.waitForCount(3)
    expect(resumed.events.map((event) => [event.id, event.data])).toEqual(written.map((event) => [event.id, event.data]))
    resumed.close()
  })

  it('resumed from the future (past any clock skew): reset, then on from now', async () => {
    const prefix = `${uniqueKey('f')}:`
    const client = await openPrefix(app, prefix, { 'last-event-id': `${Date.now() + 3_600_000}-0${onCluster ? '-0' : ''}` })
    await client.waitForCount(1)
    expect(client.events[0]).toMatchObject({ event: 'reset' })
    await put(app, `/docs/${prefix}x`, 1)
    await client.waitFor((event) => event.event === 'put')
    expect(compareIds(client.events.at(-1)!.id!, `${Date.now() + 60_000}-0${onCluster ? '-0' : ''}`)).toBeLessThan(0)
    client.close()
  })

  it('refuses an id that is not one', async () => {
    const client = await SseClient.open(app, streamUrl('a:', '&since=yesterday'))
    await client.waitForEnd()
    expect(client.status).toBe(400)
  })
})

describe('the connection of a prefix stream', () => {
  it('carries its position as heartbeats, counts against MAX_STREAMS, and ends with an end event when the app closes', async () => {
    const own = await buildTestApp({ streams: { heartbeatMs: 100, max: 1, ticketTtlMs: 60_000, catchUpReads: 100 } })
    const prefix = `${uniqueKey('h')}:`
    const client = await openPrefix(own, prefix)
    const started = client.lastId
    await put(own, `/docs/${uniqueKey('elsewhere')}`, 1)
    // A write the stream does not show still moves its position on, with the next heartbeat.
    await until(() => client.lastId !== started, 5000, () => 'the position did not move')
    expect(client.events).toEqual([])
    await expectFullThenShutdown(own, client, streamUrl(prefix))
  })
})

describe('positions of a prefix stream', () => {
  it('name the slot on a cluster alone: an id of the other shape is 400, a slot past the last too', async () => {
    const refused = onCluster ? ['1700000000000-0-16384', '1700000000000-0-123456'] : ['1700000000000-0-1']
    for (const id of refused) {
      for (const [headers, query] of [[{ 'last-event-id': id }, ''], [{}, `&since=${id}`]] as const) {
        const client = await SseClient.open(app, streamUrl('a:', query), headers)
        await client.waitForEnd()
        expect(client.status).toBe(400)
      }
    }
  })
})

describe.skipIf(!onCluster)('prefix streams on a Redis Cluster', () => {
  it('on a cluster, tell of writes in every slot of a run of slot feeds, the second included, each under its own slot', async () => {
    if (!onCluster) return
    const ranges = await app.redis.send<Array<[number, number]>>(undefined, ['CLUSTER', 'SLOTS'])
    const [first] = [...ranges].sort((a, b) => Number(a[0]) - Number(b[0]))
    const start = Number(first![0])
    // The first, second, third and last slot of the first run of a master's slot feeds (one call reads a run).
    const slots = [start, start + 1, start + 2, start + SLOT_FEEDS_PER_CALL - 1]
    const prefix = `${uniqueKey('s')}:`
    const client = await openPrefix(app, prefix)
    const keys = slots.map((slot) => `${prefix}{${tagOfSlot(slot)}}k`)
    for (const key of keys) await put(app, `/docs/${encodeURIComponent(key)}`, { key })
    await until(() => client.events.length >= keys.length, 10_000, () => `events: ${client.events.map((event) => event.data).join(', ')}`)
    expect(client.events.map((event) => JSON.parse(event.data).key)).toEqual(keys)
    expect(client.events.map((event) => Number(event.id!.split('-')[2]))).toEqual(slots)
  })

  it('a stream resumed past entries its slot feed lost takes shared reads from before them without a reset', async () => {
    const small = await buildTestApp({ events: { maxLen: 1000, retentionMs: 60_000, feedMaxLen: 5, maxEntryBytes: 16384 } })
    const prefix = `${uniqueKey('t')}:`
    const before = `${Date.now() - 1}-0-0`
    const items = Array.from({ length: 400 }, (_, index) => ({ key: `${prefix}{one}${index}`, value: index }))
    expect((await send(small, 'POST', '/batch/write', JSON.stringify({ items }))).statusCode).toBe(200)
    const after = `${Date.now() + 1}-0-0`
    // The first stream holds the instance's shared read from before the batch, whose entries its slot feed lost.
    const behind = await openPrefix(small, prefix, { 'last-event-id': before })
    const past = await openPrefix(small, prefix, { 'last-event-id': after })
    await behind.waitFor((event) => event.event === 'reset')
    await put(small, `/docs/${prefix}after`, 'after')
    await past.waitFor((event) => event.event === 'put')
    expect(past.events.map((event) => event.event)).toEqual(['put'])
    for (const client of [behind, past]) client.close()
  })

  it('read every slot feed with one call per run of a master\'s slot feeds per poll, whatever the number of streams', async () => {
    const masters = (await app.redis.masters()).length
    // Each master's slots in runs of SLOT_FEEDS_PER_CALL: all of them, and at most one short run per master.
    const perPoll = Math.ceil(16_384 / SLOT_FEEDS_PER_CALL) + masters
    const own = await buildTestApp({ keyPrefix: app.keyPrefix })
    const calls: number[] = []
    const count = (message: unknown) => { if ((message as ScriptCall).name === 'slot-feeds') calls.push(Date.now()) }
    scriptCalls.subscribe(count)
    try {
      const clients = await Promise.all(Array.from({ length: 10 }, () => openPrefix(own, `${uniqueKey('n')}:`)))
      const from = calls.length
      const started = Date.now()
      await until(() => calls.length - from >= perPoll * 10, 10_000, () => `${calls.length - from} reads`)
      const polls = (Date.now() - started) / CLUSTER_POLL_MS + 2
      expect(calls.length - from).toBeLessThanOrEqual(perPoll * polls)
      for (const client of clients) client.close()
      // With the last stream gone, polling stops.
      await until(() => own.liveStreams.count === 0, 5000, () => 'streams still open')
      // A read already sent may still be answered (a call is counted once it ends): two polls' time for it.
      await new Promise((resolve) => setTimeout(resolve, CLUSTER_POLL_MS * 2))
      const after = calls.length
      // Proving that nothing happens takes a wait: three polls' time.
      await new Promise((resolve) => setTimeout(resolve, CLUSTER_POLL_MS * 3))
      expect(calls.length).toBe(after)
    } finally {
      scriptCalls.unsubscribe(count)
    }
  })
})

describe('prefix streams are refused, with a problem, where they are not served', () => {
  it('without a feed (EVENTS_FEED_MAXLEN=0, or EVENTS_MAXLEN=0): 406, while a listing still answers', async () => {
    for (const events of [{ maxLen: 1000, retentionMs: 60_000, feedMaxLen: 0, maxEntryBytes: 16384 }, { maxLen: 0, retentionMs: 60_000, feedMaxLen: 1000, maxEntryBytes: 16384 }]) {
      const off = await buildTestApp({ events })
      const response = await get(off, streamUrl('a:'), { accept: 'text/event-stream' })
      expect(response.statusCode).toBe(406)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_STREAMS_OFF' })
      expect((await get(off, streamUrl('a:'))).statusCode).toBe(200)
    }
  })
})

// Found on a cluster run: the head went out before the stream knew where it starts, and a fresh instance's
// first prefix stream first reads the cluster's slots; a write made on receiving the head could land before
// the start and never be sent. The head now goes out once the start is known.
describe('a client that writes as soon as it has the head', () => {
  it('gets the event of its write, on an instance whose first stream this is', async () => {
    for (let round = 0; round < 3; round++) {
      const fresh = await buildTestApp()
      const root = uniqueKey('head')
      const stream = await SseClient.open(fresh, streamUrl(`${root}:`))
      expect((await put(fresh, `/docs/${root}:0`, { round })).statusCode).toBe(201)
      const [event] = await stream.waitForCount(1)
      expect(event).toMatchObject({ event: 'put' })
      expect(JSON.parse(event!.data)).toMatchObject({ key: `${root}:0`, value: { round } })
      stream.close()
      await fresh.close()
    }
  })
})
