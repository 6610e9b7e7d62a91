import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createRedisClient } from '../../src/redis/plugin.js'
import { buildTestApp, get, put, testConfig, uniqueKey } from '../helpers/app.js'
import { eventually, startOwnRedis } from '../helpers/local-redis.js'

describe('when Redis is unreachable', () => {
  it('answers 503 with Retry-After in bounded time, and recovers by itself when Redis returns', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 500, retryAfterSeconds: 3 })
    const key = uniqueKey()
    expect((await put(app, `/docs/${key}`, { kept: true })).statusCode).toBe(201)

    await redis.stop()
    for (const request of [() => get(app, `/docs/${key}`), () => put(app, `/docs/${key}/x`, 1), () => get(app, '/health')]) {
      const started = Date.now()
      const response = await request()
      expect(response.statusCode).toBe(503)
      expect(response.headers['retry-after']).toBe('3')
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_REDIS_UNAVAILABLE', status: 503 })
      expect(Date.now() - started).toBeLessThan(2000)
    }

    await redis.start()
    await eventually(async () => (await get(app, '/health')).statusCode === 200)
    expect((await put(app, `/docs/${key}`, { back: true })).statusCode).toBe(201)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ back: true })
  })
})

describe('when Redis is slower than the timeout', () => {
  it('answers 503 once the timeout passes, and serves again when Redis catches up', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 300 })
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { n: 1 })

    const admin = createRedisClient({ connection: { socketPath: redis.socketPath }, commandTimeoutMs: 5000 })
    await admin.connect()
    await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL'])
    const started = Date.now()
    const response = await get(app, `/docs/${key}`)
    const elapsed = Date.now() - started
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('1')
    // Never before the timeout; within 1.25 times it (the sweep's period), with room for a slow machine.
    expect(elapsed).toBeGreaterThanOrEqual(299)
    expect(elapsed).toBeLessThan(700)

    await eventually(async () => (await get(app, `/docs/${key}`)).statusCode === 200)
    expect((await get(app, `/docs/${key}/n`)).json()).toBe(1)
    await admin.close()
  })
})

describe('start-up refuses a Redis it cannot use', () => {
  it('fails when Redis has no JSON module', async () => {
    const redis = await startOwnRedis({ withJsonModule: false })
    await expect(buildApp(testConfig({ redis: { socketPath: redis.socketPath } })))
      .rejects.toThrow(/has no JSON module/)
  })

  it('fails when no Redis answers', async () => {
    await expect(buildApp(testConfig({ redis: { url: 'redis://127.0.0.1:1' }, redisTimeoutMs: 200 })))
      .rejects.toThrow(/ECONNREFUSED|connect/)
  })
})
