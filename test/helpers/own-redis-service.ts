import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createRedisClient, type RedisClient } from '../../src/redis/plugin.js'
import { get, put, testConfig, uniqueKey } from './app.js'
import { whenDone } from './cleanup.js'
import { startOwnRedis } from './local-redis.js'

export interface Warning {
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

export interface Setup {
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
export async function serviceOnOwnRedis (redisTimeoutMs = 500): Promise<Setup> {
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

export async function statusOf (app: FastifyInstance, url: string): Promise<number> {
  return (await get(app, url)).statusCode
}
