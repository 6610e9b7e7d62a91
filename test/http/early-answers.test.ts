import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { createRedisClient, type RedisClient } from '../../src/redis/plugin.js'
import { buildTestApp, overSocket, put, uniqueKey, type SocketResponse } from '../helpers/app.js'
import { startOwnRedis } from '../helpers/local-redis.js'

const app = await buildTestApp()

/** Reads a URL twice over a socket: the route answers the first read, the early answer the second. */
async function routeThenEarly (target: FastifyInstance, url: string): Promise<[SocketResponse, SocketResponse]> {
  const byRoute = await overSocket(target, 'GET', url)
  const answered = target.earlyAnswers.answered
  const early = await overSocket(target, 'GET', url)
  expect(target.earlyAnswers.answered).toBe(answered + 1)
  return [byRoute, early]
}

/** Headers that may differ between two answers a moment apart. */
/** Headers that name the answer rather than the moment (or the request: each has its own id). */
function lasting ({ date: _date, 'expires-in': _expiresIn, 'x-request-id': _requestId, ...headers }: Record<string, string>) {
  return headers
}

describe('early answers: remembered reads served before fastify meets them', () => {
  it('are the response the route sends: status, body and headers', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}?ttl=100`, { name: 'é\u{1F600}', n: [1, 2.50] })
    for (const url of [`/docs/${key}`, `/docs/${key}/name`]) {
      const [byRoute, early] = await routeThenEarly(app, url)
      expect(byRoute.statusCode).toBe(200)
      expect(early.statusCode).toBe(200)
      expect(early.body).toBe(byRoute.body)
      expect(lasting(early.headers)).toEqual(lasting(byRoute.headers))
      expect(Number(early.headers['content-length'])).toBe(Buffer.byteLength(early.body))
      expect(Number(early.headers['expires-in'])).toBeGreaterThanOrEqual(99)
      expect(Number(early.headers['expires-in'])).toBeLessThanOrEqual(Number(byRoute.headers['expires-in']))
    }
  })

  it('leave JSONPath queries to the route, which bounds their cost every time', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { n: [1, 2] })
    const answered = app.earlyAnswers.answered
    for (let round = 0; round < 3; round++) {
      expect((await overSocket(app, 'GET', `/docs/${key}?jsonpath=$.n[*]`)).body).toBe('[1,2]')
    }
    expect(app.earlyAnswers.answered).toBe(answered)
  })

  it('leave conditional reads, HEAD and injected requests to fastify', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const [byRoute] = await routeThenEarly(app, `/docs/${key}`)
    const answered = app.earlyAnswers.answered

    const notModified = await overSocket(app, 'GET', `/docs/${key}`, { 'if-none-match': byRoute.headers['etag']! })
    expect(notModified.statusCode).toBe(304)
    const changed = await overSocket(app, 'GET', `/docs/${key}`, { 'if-none-match': '"1"' })
    expect(changed.statusCode).toBe(200)
    expect(changed.body).toBe('{"a":1}')
    const head = await overSocket(app, 'HEAD', `/docs/${key}`)
    expect(head.statusCode).toBe(200)
    expect(head.headers['etag']).toBe(byRoute.headers['etag'])
    expect(head.body).toBe('')
    const injected = await app.inject({ method: 'GET', url: `/docs/${key}` })
    expect(injected.body).toBe('{"a":1}')

    expect(app.earlyAnswers.answered).toBe(answered)
  })

  it('never answer what the route would refuse or has not answered', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    await routeThenEarly(app, `/docs/${key}`)
    const answered = app.earlyAnswers.answered
    expect((await overSocket(app, 'GET', `/docs/${key}?jsonpath=$..[`)).statusCode).toBe(400)
    expect((await overSocket(app, 'GET', `/docs/${key}/missing`)).statusCode).toBe(404)
    expect((await overSocket(app, 'GET', `/docs/${key}/a?pointer=/a`)).statusCode).toBe(400)
    expect(app.earlyAnswers.answered).toBe(answered)
  })

  it('are off while every request is logged (LOG_REQUESTS)', async () => {
    const logged = await buildTestApp({ logRequests: true })
    const key = uniqueKey()
    await put(logged, `/docs/${key}`, { a: 1 })
    const recalled = logged.documents.recalledCount()
    for (let read = 0; read < 3; read++) expect((await overSocket(logged, 'GET', `/docs/${key}`)).body).toBe('{"a":1}')
    expect(logged.documents.recalledCount()).toBe(recalled + 2)
    expect(logged.earlyAnswers.answered).toBe(0)
  })
})

/** How many times Redis has run a command since it started. */
async function callsOf (client: RedisClient, command: string): Promise<number> {
  const stats = String(await client.sendCommand(['INFO', 'commandstats']))
  return Number(new RegExp(`cmdstat_${command.toLowerCase()}:calls=(\\d+)`).exec(stats)?.[1] ?? 0)
}

describe('early answers: plain reads served from Redis before fastify meets them', () => {
  it('are the response the route sends, with the cache off too', async () => {
    const uncached = await buildTestApp({ cacheMaxEntries: 0 })
    const key = uniqueKey()
    // Past 16 Ki characters the body is sent as a Buffer: the long text's bytes must be the same.
    const long = 'é\u{1F600}x'.repeat(8 * 1024)
    await put(uncached, `/docs/${key}?ttl=100`, { name: 'é\u{1F600}', n: [1, 2.50], '': { 'a/b': null }, long })
    for (const url of [`/docs/${key}`, `/docs/${key}/name`, `/docs/${key}/n/1`, `/docs/${key}/`, `/docs/${key}//a~1b`,
      `/docs/${key}/long`]) {
      // An If-None-Match that matches nothing takes the read to the route, over a socket as well.
      const byRoute = await overSocket(uncached, 'GET', url, { 'if-none-match': '"1"' })
      const answered = uncached.earlyAnswers.answered
      const early = await overSocket(uncached, 'GET', url)
      expect(uncached.earlyAnswers.answered).toBe(answered + 1)
      expect(early.statusCode).toBe(200)
      expect(early.body).toBe(byRoute.body)
      expect(lasting(early.headers)).toEqual(lasting(byRoute.headers))
      expect(Number(early.headers['content-length'])).toBe(Buffer.byteLength(early.body))
      expect(Number(early.headers['expires-in'])).toBeGreaterThanOrEqual(99)
    }
    expect((await overSocket(uncached, 'GET', `/docs/${key}/long`)).json()).toBe(long)
  })

  it('leave a read that fails to the route, which answers its error without reading again', async () => {
    const redis = await startOwnRedis()
    const own = await buildTestApp({ redis: { socketPath: redis.socketPath }, cacheMaxEntries: 0 })
    const admin = createRedisClient({ connection: { socketPath: redis.socketPath }, commandTimeoutMs: 5000 })
    await admin.connect()
    const key = uniqueKey()
    await put(own, `/docs/${key}`, { a: 1 })
    const answered = own.earlyAnswers.answered
    const reads = await callsOf(admin, 'JSON.GET')

    const id = { 'x-request-id': 'the-same-read' }
    const missing = await overSocket(own, 'GET', `/docs/${key}/b`, id)
    expect(await callsOf(admin, 'JSON.GET')).toBe(reads + 1)
    const byRoute = await own.inject({ method: 'GET', url: `/docs/${key}/b`, headers: id })
    expect(missing.statusCode).toBe(404)
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(missing.body).toBe(byRoute.body)
    expect(own.earlyAnswers.answered).toBe(answered)
    await admin.close()
    await own.close()
    await redis.stop()
  })

  it('answer 503 once the timeout passes when Redis stalls, not after a second wait', async () => {
    const redis = await startOwnRedis()
    const own = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 400, cacheMaxEntries: 0 })
    const admin = createRedisClient({ connection: { socketPath: redis.socketPath }, commandTimeoutMs: 5000 })
    await admin.connect()
    const key = uniqueKey()
    await put(own, `/docs/${key}`, { a: 1 })
    await overSocket(own, 'GET', `/docs/${key}`)

    await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL'])
    const started = Date.now()
    const stalled = await overSocket(own, 'GET', `/docs/${key}`)
    const elapsed = Date.now() - started
    expect(stalled.statusCode).toBe(503)
    expect(stalled.json()).toMatchObject({ code: 'DOCS_ERR_REDIS_UNAVAILABLE' })
    // One timeout takes 400 to 500 ms (the sweep's period); reading again in the route would take two.
    expect(elapsed).toBeGreaterThanOrEqual(399)
    expect(elapsed).toBeLessThan(780)
    await admin.close()
    await own.close()
    await redis.stop()
  })
})
