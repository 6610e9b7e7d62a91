import { describe, expect, it } from 'vitest'
import { buildTestApp, get, jsonPatch, patch, put, remove, uniqueKey } from '../helpers/app.js'
import { SseClient, Subscriber, until, type SseEvent } from '../helpers/sse.js'

const app = await buildTestApp()

/** Waits until the stream has been quiet for a moment after `count` events, and answers its events. */
async function settled (client: SseClient, count: number): Promise<SseEvent[]> {
  await client.waitForCount(count)
  await new Promise((resolve) => setTimeout(resolve, 150))
  return client.events
}

/** A write marking the end of a sequence: one event at the location, so every earlier write has been read. */
async function mark (url: string, value: unknown) {
  await put(app, url, value)
}

describe('a stream of a location inside a document sends nothing for writes elsewhere', () => {
  it('a merge patch at the root that leaves the location as it was (small documents carry the whole document)', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { profile: { stats: { n: 1 } }, x: 1 })
    const client = await SseClient.open(app, `/docs/${key}/profile/stats`)
    await client.waitForCount(1)
    for (let x = 2; x < 12; x++) expect((await patch(app, `/docs/${key}`, { x })).statusCode).toBe(200)
    await patch(app, `/docs/${key}`, { profile: { other: true } })
    await put(app, `/docs/${key}`, { profile: { stats: { n: 1 } }, x: 0 })
    await mark(`/docs/${key}/profile/stats/n`, 2)
    const events = await settled(client, 2)
    expect(events).toHaveLength(2)
    const subscriber = new Subscriber()
    events.forEach((event) => subscriber.apply(event))
    expect(subscriber.value).toEqual({ n: 2 })
  })

  it('an absent location gets one delete when it disappears, and nothing for writes that leave it absent', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { profile: { stats: { n: 1 } }, x: 1 })
    const client = await SseClient.open(app, `/docs/${key}/profile/stats`)
    await client.waitForCount(1)
    await remove(app, `/docs/${key}/profile/stats`)
    await patch(app, `/docs/${key}`, { x: 2 })
    await patch(app, `/docs/${key}`, { profile: null })
    await put(app, `/docs/${key}`, { x: 3 })
    await jsonPatch(app, `/docs/${key}`, [{ op: 'add', path: '/y', value: 1 }])
    await remove(app, `/docs/${key}`)
    await put(app, `/docs/${key}`, { profile: {} })
    await mark(`/docs/${key}/profile/stats`, { n: 5 })
    const events = await settled(client, 3)
    expect(events.map((event) => event.event)).toEqual(['put', 'delete', 'put'])
    expect(JSON.parse(events[2]!.data).value).toEqual({ n: 5 })
  })

  it('a stream that starts absent sends its delete once, then nothing until the location appears', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { x: 1 })
    const client = await SseClient.open(app, `/docs/${key}/profile/stats`)
    await client.waitForCount(1)
    for (let x = 2; x < 6; x++) await put(app, `/docs/${key}`, { x })
    await patch(app, `/docs/${key}`, { profile: { other: 1 } })
    await mark(`/docs/${key}/profile/stats`, 7)
    const events = await settled(client, 2)
    expect(events.map((event) => event.event)).toEqual(['delete', 'put'])
  })

  it('resumed on another instance, it knows the value at its position and stays exact', async () => {
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { profile: { stats: { n: 1 } }, x: 1 })
    const first = await SseClient.open(app, `/docs/${key}/profile/stats`)
    await first.waitForCount(1)
    await put(app, `/docs/${key}/profile/stats/n`, 2)
    await first.waitForCount(2)
    first.close()
    await patch(app, `/docs/${key}`, { x: 5 })
    await put(app, `/docs/${key}`, { profile: { stats: { n: 2 } }, x: 6 })
    await remove(app, `/docs/${key}/profile/stats`)
    await remove(app, `/docs/${key}/profile`)
    await patch(app, `/docs/${key}`, { x: 7 })
    for (const [headers, query] of [[{ 'last-event-id': first.lastId! }, ''], [{}, `?since=${first.lastId!}`]] as const) {
      const resumed = await SseClient.open(other, `/docs/${key}/profile/stats${query}`, headers)
      const events = await settled(resumed, 1)
      expect(events.map((event) => event.event)).toEqual(['delete'])
      resumed.close()
    }
  })
})

describe('many writers, subscribers of locations dropping and resuming on two instances', () => {
  it('every subscriber sees exactly the changes of its location, each once, with no event for writes elsewhere', async () => {
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const instances = [app, other]
    let seed = 30
    const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
    const key = uniqueKey()
    const url = `/docs/${key}`
    await put(app, url, { profile: { stats: { n: 0 } }, x: 0 })
    const locations = ['/profile/stats', '/profile', '/missing', '/profile/stats/n']
    const subscribers = await Promise.all(locations.flatMap((location) => [0, 1].map(async (copy) => ({
      location,
      dropping: copy === 1,
      client: await SseClient.open(instances[copy]!, url + location),
      events: [] as SseEvent[],
      applied: 0,
      subscriber: new Subscriber()
    }))))
    await Promise.all(subscribers.map((s) => s.client.waitForCount(1)))
    const take = (s: typeof subscribers[number]) => {
      for (; s.applied < s.client.events.length; s.applied++) {
        const event = s.client.events[s.applied]!
        s.events.push(event)
        s.subscriber.apply(event)
      }
    }
    let writing = true
    const writers = instances.flatMap((instance, side) => Array.from({ length: 2 }, async (_, writer) => {
      for (let step = 0; step < 40; step++) {
        switch (Math.floor(random() * 8)) {
          case 0: await patch(instance, url, { x: step }); break
          case 1: await put(instance, `${url}/profile/stats/n`, side * 100 + step).catch(() => undefined); break
          case 2: await remove(instance, `${url}/profile/stats`); break
          case 3: await patch(instance, url, { profile: { stats: { n: writer } } }); break
          case 4: await put(instance, url, { profile: { stats: { n: step % 3 } }, x: step }); break
          case 5: await patch(instance, url, { profile: null }); break
          case 6: await put(instance, `${url}/x`, step); break
          default: await patch(instance, url, { profile: { other: step } })
        }
      }
    }))
    const droppers = subscribers.filter((s) => s.dropping).map(async (s) => {
      while (writing) {
        await new Promise((resolve) => setTimeout(resolve, 20 + random() * 60))
        s.client.close()
        take(s)
        const instance = instances[Math.floor(random() * 2)]!
        const resume = s.subscriber.lastId!
        s.client = random() < 0.5
          ? await SseClient.open(instance, url + s.location, { 'last-event-id': resume })
          : await SseClient.open(instance, `${url + s.location}?since=${resume}`)
        s.applied = 0
      }
    })
    await Promise.all(writers)
    writing = false
    await Promise.all(droppers)
    // A last write that changes every location: once each subscriber has it, it has everything before it.
    const finalWrite = await put(app, url, { profile: { stats: { n: 'end' } }, missing: 'end' })
    await until(() => subscribers.every((s) => { take(s); return s.subscriber.etag === finalWrite.headers.etag }), 10_000,
      () => 'a subscriber did not get the last write')
    for (const location of locations) {
      const [steady, dropping] = subscribers.filter((s) => s.location === location)
      take(steady!)
      take(dropping!)
      const stored = await get(app, url + location)
      const expected = stored.statusCode === 404 ? undefined : stored.json()
      for (const s of [steady!, dropping!]) {
        expect(s.subscriber.value, location).toEqual(expected)
        expect(s.events.map((event) => event.event), location).not.toContain('reset')
        // Each event changes the value: none for a write elsewhere, no delete of what is absent.
        const replay = new Subscriber()
        replay.apply(s.events[0]!)
        let before = JSON.stringify(replay.value)
        for (const event of s.events.slice(1)) {
          replay.apply(event)
          const after = JSON.stringify(replay.value)
          expect(after, `${location}: ${event.event} ${event.data} changed nothing`).not.toBe(before)
          before = after
        }
      }
      // The subscriber that dropped and resumed saw the same events, with the same ids, as the one that did not.
      const seen = (s: typeof steady) => s!.events.map((event) => `${event.id} ${event.event} ${event.data}`)
      expect(seen(dropping), location).toEqual(seen(steady))
    }
  })
})
