import { dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
import { currentLibrary } from '../../src/redis/lua-script.js'
import { startLocalRedis } from '../../src/redis/local-server.js'
import { createRedisClient } from '../../src/redis/plugin.js'
import { buildTestApp, get } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { eventually, startOwnRedis } from '../helpers/local-redis.js'
import { expectOk, expectUnready } from './probe-answers.js'

/** An admin client on a Redis of the test's own. */
async function adminOf (socketPath: string) {
  const admin = createRedisClient({ connection: { socketPath }, commandTimeoutMs: 5000 })
  await admin.connect()
  whenDone(() => admin.destroy())
  return admin
}

describe('GET /livez', () => {
  it('answers while the process runs, without calling Redis (Redis down, still 200)', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 500 })
    expectOk(await get(app, '/livez'))
    await redis.stop()
    expectOk(await get(app, '/livez'))
    const head = await app.inject({ method: 'HEAD', url: '/livez' })
    expect(head.statusCode).toBe(200)
    expect(head.headers['cache-control']).toBe('no-store')
    expect(head.body).toBe('')
  })
})

describe('GET /readyz and /health, on a Redis of their own', () => {
  it('loads the function library when Redis does not hold it (after FUNCTION FLUSH), and answers 200', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath } })
    const admin = await adminOf(redis.socketPath)
    await admin.sendCommand(['FUNCTION', 'FLUSH'])
    const library = currentLibrary()
    expect(library.scripts.length).toBeGreaterThanOrEqual(12)
    expect(await admin.sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', library.name])).toEqual([])
    expectOk(await get(app, '/readyz'))
    const listed = JSON.stringify(await admin.sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', library.name]))
    for (const script of library.scripts) expect(listed).toContain(`${library.name}_${script.name.replaceAll('-', '_')}`)
  })

  it('is 503 DOCS_ERR_REDIS_UNAVAILABLE while Redis is down, and 200 again once it is back', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 500 })
    await redis.stop()
    for (const url of ['/readyz', '/health']) expectUnready(await get(app, url), 'DOCS_ERR_REDIS_UNAVAILABLE', ['redis'])
    await redis.start()
    await eventually(async () => (await get(app, '/readyz')).statusCode === 200)
    expectOk(await get(app, '/health'))
  })

  it('is 503 DOCS_ERR_REDIS_UNAVAILABLE within the timeout when Redis is paused', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 300 })
    const admin = await adminOf(redis.socketPath)
    await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL'])
    const started = Date.now()
    expectUnready(await get(app, '/readyz'), 'DOCS_ERR_REDIS_UNAVAILABLE', ['redis'])
    // Bounded by the timeout (the deadline sweeps a quarter of it apart), with room for a slow machine.
    expect(Date.now() - started).toBeLessThan(1000)
    await eventually(async () => (await get(app, '/readyz')).statusCode === 200)
  })

  it('is 503 DOCS_ERR_NOT_READY naming the JSON module when Redis comes back without it', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 500 })
    await redis.stop()
    const bare = await startLocalRedis({ dir: dirname(redis.socketPath), persistent: false, withJsonModule: false })
    whenDone(() => bare.stop())
    await eventually(async () => (await get(app, '/readyz')).json().code !== 'DOCS_ERR_REDIS_UNAVAILABLE')
    const problem = expectUnready(await get(app, '/readyz'), 'DOCS_ERR_NOT_READY', ['json-module'])
    expect(problem.detail).toMatch(/no JSON module/)
  })

  it('is 503 DOCS_ERR_NOT_READY naming the scripts when Redis refuses to load them', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath } })
    const admin = await adminOf(redis.socketPath)
    await admin.sendCommand(['FUNCTION', 'FLUSH'])
    // The service's user may no longer load functions (an ACL change): reads still answer, scripts cannot run.
    await admin.sendCommand(['ACL', 'SETUSER', 'default', '-function|load'])
    whenDone(() => admin.sendCommand(['ACL', 'SETUSER', 'default', '+@all']))
    const problem = expectUnready(await get(app, '/readyz'), 'DOCS_ERR_NOT_READY', ['scripts'])
    expect(problem.detail).toMatch(/function library jsondocs_[0-9a-f]{12} did not load/)
    await admin.sendCommand(['ACL', 'SETUSER', 'default', '+@all'])
    expectOk(await get(app, '/readyz'))
  })

  it('shares one check among concurrent probes: a flood of probes costs Redis one check at a time', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath } })
    const admin = await adminOf(redis.socketPath)
    await admin.sendCommand(['CONFIG', 'RESETSTAT'])
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(app, '/readyz')))
    for (const answer of answers) expect(answer.statusCode).toBe(200)
    const stats = String(await admin.sendCommand(['INFO', 'commandstats']))
    const pings = Number(/cmdstat_ping:calls=(\d+)/.exec(stats)?.[1] ?? 0)
    expect(pings).toBeGreaterThan(0)
    expect(pings).toBeLessThan(50)
  })
})

