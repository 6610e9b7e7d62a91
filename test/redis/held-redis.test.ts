import { describe, expect, it } from 'vitest'
import { createRedisClient, type RedisClient } from '../../src/redis/plugin.js'
import { answersWithin } from '../../src/redis/probe.js'
import { put } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { eventually } from '../helpers/local-redis.js'
import { serviceOnOwnRedis, statusOf, type Setup } from '../helpers/own-redis-service.js'
import { redisPid } from '../helpers/service-process.js'

/** Resolves once Redis leaves the admin's PING unanswered for 100 ms. */
async function heldBy (admin: RedisClient): Promise<void> {
  await eventually(async () => !(await answersWithin(admin.ping(), 100)))
}

describe('a Redis that is slow, paused or stopped', () => {
  /**
   * How long a hold that ends by itself lasts (a pause of every client, which CLIENT UNPAUSE cannot pass, and
   * a script): room for four requests of 1.25 times the 300 ms timeout on a busy machine. The others last
   * until the test ends them, once it has seen them answered 503.
   */
  const HOLD_MS = 3000
  /** A bound on the holds the test ends itself, should it fail before it does. */
  const UNTIL_RELEASED_MS = 60_000
  const endsByItself = () => {}
  const holds: Array<[string, (setup: Setup) => Promise<() => Promise<void> | void>]> = [
    ['CLIENT PAUSE ALL', async ({ admin }) => {
      await admin.sendCommand(['CLIENT', 'PAUSE', String(HOLD_MS), 'ALL'])
      return endsByItself
    }],
    // PING would pass a write pause: the probe runs a script, which waits as the service's writes do.
    ['CLIENT PAUSE WRITE, a write held', async ({ admin, app, url }) => {
      await admin.sendCommand(['CLIENT', 'PAUSE', String(UNTIL_RELEASED_MS), 'WRITE'])
      expect((await put(app, url, { n: 3 })).statusCode).toBe(503)
      return async () => { await admin.sendCommand(['CLIENT', 'UNPAUSE']) }
    }],
    ['a long script', async ({ admin, socketPath }) => {
      const busy = createRedisClient({ connection: { socketPath }, commandTimeoutMs: 5000 })
      busy.on('error', () => {})
      await busy.connect()
      void busy.sendCommand(['EVAL', 'local t = redis.call("TIME") local e = t[1] * 1000000 + t[2] + ' + HOLD_MS * 1000 + ' ' +
        'while true do t = redis.call("TIME") if t[1] * 1000000 + t[2] > e then break end end return 1', '0'])
        .finally(() => busy.destroy())
      await heldBy(admin)
      return endsByItself
    }],
    ['SIGSTOP', async ({ admin }) => {
      const pid = await redisPid(admin)
      const resume = () => { try { process.kill(pid, 'SIGCONT') } catch { /* already gone */ } }
      process.kill(pid, 'SIGSTOP')
      const timer = setTimeout(resume, UNTIL_RELEASED_MS)
      whenDone(() => { clearTimeout(timer); resume() })
      await heldBy(admin)
      return resume
    }]
  ]

  it.each(holds)('%s: answers 503 while it lasts, keeps the connection, and serves again after', async (_name, hold) => {
    const setup = await serviceOnOwnRedis(300)
    const { app, url, replacements } = setup
    const release = await hold(setup)
    for (const request of ['/health', url, '/health']) expect(await statusOf(app, request)).toBe(503)
    await release()

    await eventually(async () => await statusOf(app, '/health') === 200)
    expect(await statusOf(app, url)).toBe(200)
    expect((await put(app, url, { n: 4 })).statusCode).toBe(200)
    expect(replacements()).toEqual([])
  })
})
