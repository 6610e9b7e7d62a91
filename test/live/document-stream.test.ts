import { describe, expect, it } from 'vitest'
import { logOf } from '../../src/documents/store/context.js'
import { buildTestApp, connectRedis, get, jsonPatch, operate, patch, put, remove, uniqueKey, versionKeyOf } from '../helpers/app.js'
import { expectFullThenShutdown, SseClient, Subscriber, until } from '../helpers/sse.js'

const app = await buildTestApp()

/** Reads what the service holds at a URL: value (undefined: 404) and ETag. */
async function stored (url: string) {
  const response = await get(app, url)
  return response.statusCode === 404 ? { value: undefined, etag: undefined } : { value: response.json(), etag: response.headers.etag }
}

/** Follows a stream with a subscriber until it holds what the service holds at url. */
async function expectCaughtUp (client: SseClient, subscriber: Subscriber, url: string) {
  const expected = await stored(url)
  let applied = 0
  await until(() => {
    for (; applied < client.events.length; applied++) subscriber.apply(client.events[applied]!)
    return JSON.stringify(subscriber.value) === JSON.stringify(expected.value) && (expected.etag === undefined || subscriber.etag === expected.etag)
  }, 10_000, () => `the subscriber holds ${JSON.stringify(subscriber.value)}, the service ${JSON.stringify(expected.value)}`)
}

describe('a live stream of a document', () => {
  it('starts with the value and its ETag, then a patch per write, each with an id', async () => {
    const key = uniqueKey()
    const note = 'a document long enough that a patch of one member is shorter than its whole value'
    const written = await put(app, `/docs/${key}`, { a: 1, list: [1], note })
    const client = await SseClient.open(app, `/docs/${key}`)
    expect(client.status).toBe(200)
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    const [first] = await client.waitForCount(1)
    expect(first).toMatchObject({ event: 'put', data: JSON.stringify({ value: { a: 1, list: [1], note }, etag: written.headers.etag }) })
    expect(first!.id).toMatch(/^\d+-\d+$/)

    const second = await put(app, `/docs/${key}/a`, 2)
    const [, patched] = await client.waitForCount(2)
    expect(patched!.event).toBe('patch')
    expect(JSON.parse(patched!.data)).toEqual({ patch: [{ op: 'replace', path: '/a', value: 2 }], etag: second.headers.etag })
    expect(patched!.id! > first!.id!).toBe(true)

    await operate(app, `/docs/${key}/list`, { op: 'push', values: [2] })
    const [, , pushed] = await client.waitForCount(3)
    expect(JSON.parse(pushed!.data).patch).toEqual([{ op: 'replace', path: '/list', value: [1, 2] }])

    expect((await remove(app, `/docs/${key}`)).statusCode).toBe(204)
    const [, , , removed] = await client.waitForCount(4)
    expect(removed).toMatchObject({ event: 'delete', data: '{}' })
  })

  it('at a location: patches relative to it, its whole value when a write above replaces it, nothing for writes elsewhere', async () => {
    const key = uniqueKey()
    // A value long enough that a patch of one member is shorter than it.
    const note = 'x'.repeat(80)
    await put(app, `/docs/${key}`, { a: { b: { c: 1, note } }, other: 0 })
    const client = await SseClient.open(app, `/docs/${key}/a/b`)
    await client.waitForCount(1)
    expect(JSON.parse(client.events[0]!.data).value).toEqual({ c: 1, note })

    await put(app, `/docs/${key}/other`, 1)
    await put(app, `/docs/${key}/a/b/c`, 2)
    await client.waitForCount(2)
    expect(client.events[1]!.event).toBe('patch')
    expect(JSON.parse(client.events[1]!.data).patch).toEqual([{ op: 'replace', path: '/c', value: 2 }])

    await patch(app, `/docs/${key}`, { a: { b: { d: true } } })
    await client.waitForCount(3)
    expect(client.events[2]!.event).toBe('put')
    expect(JSON.parse(client.events[2]!.data).value).toEqual({ c: 2, note, d: true })

    await jsonPatch(app, `/docs/${key}`, [{ op: 'remove', path: '/a/b' }])
    await client.waitForCount(4)
    expect(client.events[3]).toMatchObject({ event: 'delete' })
    await put(app, `/docs/${key}/other`, 2)
    await put(app, `/docs/${key}/a/b`, 'back')
    await client.waitForCount(5)
    expect(client.events[4]!.event).toBe('put')
    expect(client.events).toHaveLength(5)
  })

  it('sends a put with the new value where the patch would be longer, and still nothing for writes elsewhere', async () => {
    const key = uniqueKey()
    const note = 'x'.repeat(80)
    await put(app, `/docs/${key}`, { a: { n: 0 }, other: { n: 0, note } })
    const [root, atA, atOther] = await Promise.all(['', '/a', '/other'].map((pointer) => SseClient.open(app, `/docs/${key}${pointer}`)))
    for (const client of [root!, atA!, atOther!]) await client.waitForCount(1)
    // Twenty operations rewriting one small member: their patch is far longer than the document they leave.
    const many = await jsonPatch(app, `/docs/${key}`, Array.from({ length: 20 }, (_, index) => ({ op: 'replace', path: '/a/n', value: index + 1 })))
    expect(many.statusCode).toBe(200)
    for (const [client, value] of [[root!, { a: { n: 20 }, other: { n: 0, note } }], [atA!, { n: 20 }]] as const) {
      await client.waitForCount(2)
      expect(client.events[1]!.event).toBe('put')
      expect(JSON.parse(client.events[1]!.data)).toEqual({ value, etag: many.headers.etag })
    }
    // One short operation on a longer value stays a patch.
    await put(app, `/docs/${key}/other/n`, 1)
    for (const client of [root!, atOther!]) {
      await client.waitForCount(atOther === client ? 2 : 3)
      expect(client.events.at(-1)!.event).toBe('patch')
    }
    expect(atOther!.events.map((event) => event.event)).toEqual(['put', 'patch'])
    expect(atA!.events).toHaveLength(2)
  })

  it('starts with delete when nothing is there', async () => {
    const key = uniqueKey()
    const client = await SseClient.open(app, `/docs/${key}`)
    await client.waitForCount(1)
    expect(client.events[0]).toMatchObject({ event: 'delete' })
    expect(client.events[0]!.id).toMatch(/^0-\d+$/)
    await put(app, `/docs/${key}`, { now: true, note: 'a document long enough that a patch of one member is shorter than its whole value' })
    await client.waitForCount(2)
    expect(client.events[1]!.event).toBe('put')
    client.close()
    await put(app, `/docs/${key}/then`, 1)
    // Resumed from before the first event: everything since, nothing again.
    const resumed = await SseClient.open(app, `/docs/${key}`, { 'last-event-id': client.events[0]!.id! })
    await resumed.waitForCount(2)
    expect(resumed.events.map((event) => event.event)).toEqual(['put', 'patch'])
    expect(resumed.events[0]!.id).toBe(client.events[1]!.id)
  })

  // The head goes out once a stream has started (src/live/sse.ts): one resumed with nothing new to say still has it at once.
  it('resumed on another instance with nothing new, answers its head at once, then a small document whole', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { n: 1 })
    const client = await SseClient.open(app, `/docs/${key}`)
    const [first] = await client.waitForCount(1)
    client.close()
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const resumed = await SseClient.open(other, `/docs/${key}`, { 'last-event-id': first!.id! })
    expect(resumed.status).toBe(200)
    expect(resumed.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(resumed.events).toEqual([])
    const written = await put(app, `/docs/${key}`, { n: 2 })
    const [event] = await resumed.waitForCount(1)
    expect(event).toMatchObject({ event: 'put', data: JSON.stringify({ value: { n: 2 }, etag: written.headers.etag }) })
    resumed.close()
    await other.close()
  })

  it('reproduces the document exactly from its events, under concurrent writers of every kind', async () => {
    const key = uniqueKey()
    const url = `/docs/${key}`
    await put(app, url, { n: 0, list: [], tags: {}, text: '' })
    const client = await SseClient.open(app, url)
    const subscriber = new Subscriber()
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let step = 0; step < 25; step++) {
        const which = (writer + step) % 6
        if (which === 0) await operate(app, `${url}/n`, { op: 'incr', by: 1 })
        else if (which === 1) await operate(app, `${url}/list`, { op: 'push', values: [step] })
        else if (which === 2) await put(app, `${url}/tags/w${writer}`, { step })
        else if (which === 3) await patch(app, `${url}/tags`, { [`m${step}`]: step % 2 === 0 ? step : null })
        else if (which === 4) await jsonPatch(app, url, [{ op: 'add', path: '/list/0', value: 'x' }, { op: 'replace', path: '/text', value: `t${step}` }])
        else await remove(app, `${url}/list/0`)
      }
    })
    await Promise.all(writers)
    await expectCaughtUp(client, subscriber, url)
    expect(new Set(subscriber.seen).size).toBe(subscriber.seen.length)
  })
})

describe('resuming', () => {
  it('after a dropped connection, Last-Event-ID and ?since= get exactly the missed events', async () => {
    const key = uniqueKey()
    const url = `/docs/${key}`
    await put(app, url, { n: 0 })
    const subscriber = new Subscriber()
    let client = await SseClient.open(app, url)
    const ids: string[] = []
    for (let round = 0; round < 6; round++) {
      // Writes while connected and while not.
      for (let step = 0; step < 5; step++) await operate(app, `${url}/n`, { op: 'incr', by: 1 })
      await expectCaughtUp(client, subscriber, url)
      ids.push(...client.events.map((event) => event.id!))
      client.close()
      for (let step = 0; step < 5; step++) await put(app, `${url}/r${round}`, step)
      client = round % 2 === 0
        ? await SseClient.open(app, url, { 'last-event-id': subscriber.lastId! })
        : await SseClient.open(app, `${url}?since=${subscriber.lastId!}`)
    }
    await expectCaughtUp(client, subscriber, url)
    ids.push(...client.events.map((event) => event.id!))
    expect(client.events.map((event) => event.event)).not.toContain('reset')
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(ids)
  })

  it('of a location set within its last 100 entries costs the credentials no catch-up read, however many entries the document has', async () => {
    // One catch-up read a minute: a resume that spent any would leave the next not knowing its value.
    const budgeted = await buildTestApp({ keyPrefix: app.keyPrefix, streams: { heartbeatMs: 15_000, max: 100, ticketTtlMs: 60_000, catchUpReads: 1 } })
    const key = uniqueKey()
    const url = `/docs/${key}`
    // A value longer than a patch of it, so that its changes go as patches.
    const note = 'a note longer than a patch of the number beside it'
    await put(budgeted, url, { profile: { n: 0, note }, x: 0 })
    for (let step = 1; step <= 130; step++) await put(budgeted, `${url}/x`, step)
    await put(budgeted, `${url}/profile`, { n: 1, note })
    const subscriber = new Subscriber()
    let client = await SseClient.open(budgeted, `${url}/profile`)
    await client.waitForCount(1)
    subscriber.apply(client.events[0]!)
    for (let round = 0; round < 4; round++) {
      client.close()
      await put(budgeted, `${url}/x`, 1000 + round)
      client = await SseClient.open(budgeted, `${url}/profile`, { 'last-event-id': subscriber.lastId! })
      // The whole document written again, the location as it was: a stream knowing its value sends nothing.
      await put(budgeted, url, { profile: { n: 1 + round, note }, x: round })
      await put(budgeted, `${url}/profile/n`, 2 + round)
      const events = await client.waitForCount(1)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(events.map((event) => `${event.event} ${event.data}`), `round ${round}`).toEqual([`patch ${JSON.stringify({
        patch: [{ op: 'replace', path: '/n', value: 2 + round }], etag: (await get(budgeted, url)).headers.etag
      })}`])
      subscriber.apply(events[0]!)
    }
  })

  it('from an id past the retention: reset, then a fresh value', async () => {
    const small = await buildTestApp({ events: { maxLen: 5, retentionMs: 60_000, feedMaxLen: 100_000, maxEntryBytes: 16384 } })
    const key = uniqueKey()
    const url = `/docs/${key}`
    await put(small, url, { n: 0 })
    const first = await SseClient.open(small, url)
    await first.waitForCount(1)
    first.close()
    for (let step = 0; step < 250; step++) await operate(small, `${url}/n`, { op: 'incr', by: 1 })
    const resumed = await SseClient.open(small, url, { 'last-event-id': first.events[0]!.id! })
    await resumed.waitForCount(2)
    expect(resumed.events.map((event) => event.event)).toEqual(['reset', 'put'])
    expect(JSON.parse(resumed.events[1]!.data).value).toEqual({ n: 250 })

    const old = await SseClient.open(small, url, { 'last-event-id': '1000-0' })
    await old.waitForCount(2)
    expect(old.events.map((event) => event.event)).toEqual(['reset', 'put'])
  })

  it('refuses an id that is not one', async () => {
    const client = await SseClient.open(app, `/docs/${uniqueKey()}`, { 'last-event-id': 'yesterday' })
    await client.waitForEnd()
    expect(client.status).toBe(400)
  })
})

describe('the connection', () => {
  it('carries heartbeats, and ends with an end event when the app closes', async () => {
    const own = await buildTestApp({ streams: { heartbeatMs: 100, max: 1, ticketTtlMs: 60_000, catchUpReads: 100 } })
    const client = await SseClient.open(own, `/docs/${uniqueKey()}`)
    await until(() => client.comments >= 2, 5000, () => 'no heartbeats')
    await expectFullThenShutdown(own, client, `/docs/${uniqueKey()}`)
  })

  it('is refused when no events are recorded', async () => {
    const off = await buildTestApp({ events: { maxLen: 0, retentionMs: 60_000, feedMaxLen: 100_000, maxEntryBytes: 16384 } })
    const client = await SseClient.open(off, `/docs/${uniqueKey()}`)
    await client.waitForEnd()
    expect(client.status).toBe(406)
  })
})

describe('many instances', () => {
  it('subscribers dropping and resuming at random points on either instance, under writers on both, reproduce the document', async () => {
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const instances = [app, other]
    let seed = 22
    const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
    const key = uniqueKey()
    const url = `/docs/${key}`
    await put(app, url, { n: 0, list: [], members: {} })
    const followers = await Promise.all(Array.from({ length: 4 }, async (_, index) => {
      const client = await SseClient.open(instances[index % 2]!, url)
      return { subscriber: new Subscriber(), client, applied: 0, ids: [] as string[], kinds: [] as string[] }
    }))
    const catchUp = (follower: typeof followers[number]) => {
      for (; follower.applied < follower.client.events.length; follower.applied++) {
        const event = follower.client.events[follower.applied]!
        follower.subscriber.apply(event)
        follower.ids.push(event.id!)
        follower.kinds.push(event.event)
      }
    }
    let writing = true
    const writers = instances.flatMap((instance, side) => Array.from({ length: 2 }, async (_, writer) => {
      for (let step = 0; step < 30; step++) {
        const which = (side + writer + step) % 5
        if (which === 0) await operate(instance, `${url}/n`, { op: 'incr', by: 1 })
        else if (which === 1) await operate(instance, `${url}/list`, { op: 'push', values: [`${side}${writer}:${step}`] })
        else if (which === 2) await put(instance, `${url}/members/m${step % 7}`, { side, step })
        else if (which === 3) await jsonPatch(instance, url, [{ op: 'remove', path: '/list/0' }]).then(() => undefined)
        else await patch(instance, `${url}/members`, { [`m${(step + 3) % 7}`]: null })
      }
    }))
    const droppers = followers.map(async (follower) => {
      while (writing) {
        await new Promise((resolve) => setTimeout(resolve, 20 + random() * 80))
        // A stream drops once it has started (its first event names where to resume from).
        await until(() => follower.client.events.length > 0, 10_000, () => 'a stream never started')
        follower.client.close()
        catchUp(follower)
        const instance = instances[Math.floor(random() * 2)]!
        const resume = follower.subscriber.lastId!
        follower.client = random() < 0.5
          ? await SseClient.open(instance, url, { 'last-event-id': resume })
          : await SseClient.open(instance, `${url}?since=${resume}`)
        follower.applied = 0
      }
    })
    await Promise.all(writers)
    writing = false
    await Promise.all(droppers)
    const expected = await stored(url)
    for (const follower of followers) {
      await until(() => { catchUp(follower); return follower.subscriber.etag === expected.etag }, 10_000, () => `a follower is at ${follower.subscriber.etag}, the document at ${expected.etag}`)
      expect(follower.subscriber.value).toEqual(expected.value)
      expect(follower.kinds).not.toContain('reset')
      expect(new Set(follower.ids).size).toBe(follower.ids.length)
      expect([...follower.ids].sort()).toEqual(follower.ids)
    }
  })
})

describe('an entry an earlier release wrote into the log (a rolling restart)', () => {
  it('names no entry before it: the stream sends reset and a fresh value, never skipping it silently', async () => {
    const key = uniqueKey()
    const url = `/docs/${key}`
    await put(app, url, { n: 1 })
    const client = await SseClient.open(app, url)
    await client.waitForCount(1)
    // A write of a layout-3 instance (its entry names no document's entry before it), then one of this release
    // naming the entry the stream holds: only the first says the stream missed something.
    const redis = await connectRedis()
    await redis.sendCommand(['EVAL', `
redis.call('JSON.SET', KEYS[1], '$.n', '3')
redis.call('XADD', KEYS[3], '*', 'prev', '0-0', 'k', KEYS[1], 'v', '5', 'c', '[{"op":"replace","path":"/n","value":2}]')
local id = redis.call('XADD', KEYS[3], '*', 'prev', '0-0', 'k', KEYS[1], 'p', ARGV[1], 'v', '6', 'c', '[{"op":"replace","path":"/n","value":3}]')
redis.call('SET', KEYS[2], '6::::' .. id)`, '3', app.keyPrefix + key, versionKeyOf(app.keyPrefix, key), logOf(app, key), client.events[0]!.id!])
    await client.waitForCount(3)
    expect(client.events.map((event) => event.event).slice(1, 3)).toEqual(['reset', 'put'])
    const subscriber = new Subscriber()
    await expectCaughtUp(client, subscriber, url)
  })
})
