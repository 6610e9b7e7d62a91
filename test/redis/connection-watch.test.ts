import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { REPLACEMENT_INTERVAL_MS } from '../../src/redis/connection-watch.js'
import { createRedisClient, type RedisClient } from '../../src/redis/plugin.js'
import { answersWithin } from '../../src/redis/probe.js'
import { get, put, testConfig, uniqueKey } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { eventually, startOwnRedis } from '../helpers/local-redis.js'
import { redisPid } from '../helpers/service-process.js'

interface Warning {
  at: number
  message: string
}

/** A logger keeping the warnings it is given, as fastify's loggerInstance. */
function warningLogger (warnings: Warning[]) {
  const ignore = () => {}
  const logger = {
    level: 'warn',
    warn: (...args: unknown[]) => {
      warnings.push({ at: Date.now(), message: String(args.find((arg) => typeof arg === 'string') ?? '') })
    },
    info: ignore, error: ignore, fatal: ignore, debug: ignore, trace: ignore, silent: ignore,
    child: () => logger
  }
  return logger
}

interface Setup {
  app: FastifyInstance
  /** A connection of the test's own to the same Redis, to look or act behind the service's back. */
  admin: RedisClient
  socketPath: string
  warnings: Warning[]
  /** The document the test reads, holding {"n":1}, and its JSON key in Redis. */
  url: string
  redisKey: string
  replacements (): Warning[]
}

/** The service on a Redis of the test's own, with a document written and a record of its warnings. */
async function serviceOnOwnRedis (redisTimeoutMs = 500): Promise<Setup> {
  const redis = await startOwnRedis()
  const warnings: Warning[] = []
  const config = testConfig({ redis: { socketPath: redis.socketPath }, redisTimeoutMs })
  const app = await buildApp(config, { logger: warningLogger(warnings) as never })
  whenDone(() => app.close())
  const admin = createRedisClient({ connection: { socketPath: redis.socketPath }, commandTimeoutMs: 5000 })
  admin.on('error', () => {})
  await admin.connect()
  whenDone(() => admin.destroy())
  const key = uniqueKey()
  const url = `/docs/${key}`
  expect((await put(app, url, { n: 1 })).statusCode).toBe(201)
  const replacements = () => warnings.filter(({ message }) => message.includes('replacing a broken connection'))
  return { app, admin, socketPath: redis.socketPath, warnings, url, redisKey: config.keyPrefix + key, replacements }
}

async function statusOf (app: FastifyInstance, url: string): Promise<number> {
  return (await get(app, url)).statusCode
}

/** A script whose reply nests deeper than node-redis' recursive decoder can go: it throws mid-reply. */
const TOO_DEEP_REPLY = ['EVAL', 'local t = 1 for i = 1, 6000 do t = {t} end return t', '0']

/** A call through the service's own client that never gets its reply; its rejection once dropped. */
function stranded (app: FastifyInstance, command: string[]): Promise<unknown> {
  return app.redis.send(undefined, command).then(() => 'answered', (error: unknown) => error)
}

describe('a connection that stops getting replies while Redis answers', () => {
  it('is replaced, and /health and reads answer 200 again', async () => {
    const { app, url, warnings } = await serviceOnOwnRedis()
    const silenced = stranded(app, ['CLIENT', 'REPLY', 'OFF'])
    expect(await statusOf(app, '/health')).toBe(503)

    await eventually(async () => await statusOf(app, '/health') === 200)
    expect((await get(app, url)).json()).toEqual({ n: 1 })
    expect((await put(app, url, { n: 2 })).statusCode).toBe(200)
    expect((await get(app, url)).json()).toEqual({ n: 2 })
    expect(await silenced).toBeInstanceOf(Error)
    expect(warnings.map(({ message }) => message)).toEqual([
      expect.stringMatching(/replacing a broken connection.*: no reply on this connection within 500 ms, while Redis answers another$/)
    ])
  })
})

describe('a reply the client cannot decode', () => {
  it('has its connection replaced at once, and nothing cached before is served after', async () => {
    const { app, admin, url, redisKey, warnings, replacements } = await serviceOnOwnRedis()
    expect((await get(app, url)).json()).toEqual({ n: 1 })
    expect((await get(app, url)).json()).toEqual({ n: 1 })

    expect(await stranded(app, TOO_DEEP_REPLY)).toBeInstanceOf(Error)
    expect(replacements()).toHaveLength(1)
    expect(replacements()[0]!.message).toMatch(/a reply could not be decoded \(Maximum call stack size exceeded\)/)
    // Changed while no connection of the service tracks it: only a cleared cache can see it.
    await admin.sendCommand(['JSON.SET', redisKey, '$', '{"n":2}'])

    await eventually(async () => await statusOf(app, '/health') === 200)
    expect((await get(app, url)).json()).toEqual({ n: 2 })
    expect(warnings).toHaveLength(1)
  })

  // The issue's own failure: a reply longer than V8 can hold in a string. It costs about 1.2 GB in the
  // test process and as much in Redis, and some 15 s, so it runs only when asked for.
  it.runIf(process.env.JSONDOCS_TEST_HUGE_REPLY === '1')('as a 512 MiB string, breaks the connection and it heals (JSONDOCS_TEST_HUGE_REPLY=1)', async () => {
    // A timeout longer than the transfer, so that only the failure to decode can give the connection away.
    const { app, admin, url, replacements } = await serviceOnOwnRedis(60_000)
    await admin.sendCommand(['SETRANGE', 'huge', String(512 * 1024 * 1024 - 1), 'x'])

    expect(await stranded(app, ['GET', 'huge'])).toBeInstanceOf(Error)
    await admin.sendCommand(['DEL', 'huge'])
    expect(replacements()).toHaveLength(1)
    expect(replacements()[0]!.message).toMatch(/a reply could not be decoded \(Cannot create a string longer than/)
    await eventually(async () => await statusOf(app, '/health') === 200)
    expect((await get(app, url)).json()).toEqual({ n: 1 })
  }, 180_000)
})

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

describe('replacements are rate-limited', () => {
  it(`makes a new connection at most once per ${REPLACEMENT_INTERVAL_MS} ms`, async () => {
    const { app, url, replacements } = await serviceOnOwnRedis()
    await stranded(app, TOO_DEEP_REPLY)
    await eventually(async () => await statusOf(app, '/health') === 200)

    await stranded(app, TOO_DEEP_REPLY)
    const [first, second] = replacements()
    expect(second!.message).toMatch(/a new connection in \d+ ms/)
    await eventually(async () => await statusOf(app, '/health') === 200, REPLACEMENT_INTERVAL_MS + 10_000)
    expect(Date.now() - first!.at).toBeGreaterThanOrEqual(REPLACEMENT_INTERVAL_MS)
    expect(await statusOf(app, url)).toBe(200)
    expect(replacements()).toHaveLength(2)
  }, 30_000)
})
