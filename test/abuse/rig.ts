import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type fc from 'fast-check'
import { expect } from 'vitest'
import { whenDone } from '../helpers/cleanup.js'
import { startOwnRedis } from '../helpers/local-redis.js'
import { buildApp } from '../../src/app.js'
import { versionKeyOf } from '../helpers/app.js'
import { LOG_SUFFIX } from '../../src/documents/store/context.js'
import { KEPT_CHANGES_SUFFIX } from '../../src/documents/scripts/prelude.js'
import { appConfigFrom, loadEnvironment, type AppConfig } from '../../src/config.js'
import { createRedisClient, type RedisClient } from '../../src/redis/plugin.js'
import { busyBound, type BusyLog } from './busy.js'
import { fingerprint, sentinelKeys, sentinels, type Fingerprint } from './fingerprint.js'

/**
 * The abuse suite's rig: a redis-server of the file's own (so that a fingerprint of the whole keyspace
 * sees every key any request could reach, and nothing from other test files moves it), the service on
 * it at its default limits, and a plain client to look behind the service's back.
 */
export interface Rig {
  app: FastifyInstance
  /** The service's KEY_PREFIX. */
  prefix: string
  redis: RedisClient
  busy: BusyLog
  /** How many answers of each status the cases got, printed after the file's tests. */
  statuses: Map<number, number>
  /** Keys seeded for cases to leave alone (see sentinels). */
  sentinels: ReadonlySet<string>
}

/**
 * The admin token of the rig's service: its metrics are on, and observe every hostile request. Every
 * other request has every right, so that the hostile ones reach the routes rather than a 401.
 */
const ADMIN_TOKEN = 'abuse-suite-admin-token-0123456789'
const EVERY_RIGHT = JSON.stringify([{ prefix: '', rights: ['read', 'write', 'schema'] }])

/** The service's configuration at its production defaults, on the rig's Redis, with its metrics on. */
function defaultsOn (socketPath: string, prefix: string): AppConfig {
  // Rate limits off: the hostile requests must reach the routes, not a 429.
  const environment = loadEnvironment({ AUTH_ADMIN_TOKEN: ADMIN_TOKEN, AUTH_ANONYMOUS_SCOPES: EVERY_RIGHT, RATE_LIMIT: 'off' })
  return { ...appConfigFrom(environment, { socketPath }), keyPrefix: prefix, logLevel: 'silent' }
}

/** What the metrics may label a request with: the service's own routes and a handful of methods, whatever was sent. */
const METHOD_LABELS = ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS', 'other']

/**
 * After the file's hostile requests, every series of the request metrics names a route the service has
 * (or `unmatched`), a method label of the fixed set and a status: no request made a series of its own.
 */
async function expectBoundedSeries (app: FastifyInstance): Promise<void> {
  const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  expect(response.statusCode).toBe(200)
  const series = response.body.split('\n').filter((line) => line.startsWith('jsondocs_http_request_duration_seconds_count{'))
  expect(series.length).toBeGreaterThan(0)
  for (const line of series) {
    const [, route, method, status] = /^[^{]+\{route="([^"]*)",method="([^"]*)",status_code="([^"]*)"\} /.exec(line) ?? []
    expect(route === 'unmatched' || METHOD_LABELS.slice(0, 7).some((known) => app.hasRoute({ url: route!, method: known as 'GET' })) ||
      app.hasRoute({ url: route!, method: 'PROPFIND' as 'GET' }), `route label ${route}`).toBe(true)
    expect(METHOD_LABELS, `method label of ${line}`).toContain(method)
    expect(status, `status label of ${line}`).toMatch(/^[1-5][0-9]{2}$/)
  }
}

/** Starts the rig for a test file; everything stops after the file's tests. */
export async function startRig (overrides: Partial<AppConfig> = {}): Promise<Rig> {
  const server = await startOwnRedis()
  const redis = createRedisClient({ connection: { socketPath: server.socketPath }, commandTimeoutMs: 5000 })
  await redis.connect()
  whenDone(() => redis.close())
  await redis.sendCommand(['CLIENT', 'SETNAME', HARNESS_CLIENT])
  const prefix = `abuse:${randomUUID()}:`
  const app = await buildApp({ ...defaultsOn(server.socketPath, prefix), ...overrides })
  whenDone(() => app.close())
  // Runs before the close above: after hooks run last registered first.
  whenDone(() => expectBoundedSeries(app))
  await sentinels(redis, prefix)
  const statuses = new Map<number, number>()
  const busy = await busyBound(redis, HARNESS_CLIENT, statuses)
  return { app, prefix, redis, busy, statuses, sentinels: new Set(sentinelKeys(prefix)) }
}

/** ABUSE_TRACE=1 writes each case's request and answer time to stderr, to find a case that hangs. */
const TRACE = process.env.ABUSE_TRACE === '1'

/** The name the rig's own connection goes by, so its commands are told apart from the service's. */
export const HARNESS_CLIENT = 'abuse-harness'

/** An HTTP answer, from inject or from a socket. */
export interface Answer {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

export interface CaseReport {
  /** The answer the case's request got. */
  answer: Answer
  /** The longest any one Redis command of the request took, in ms (from 2 ms; 0 below). */
  busyMs: number
  /** The case's own Redis keys, before and after, as fingerprinted. */
  ownBefore: Fingerprint
  ownAfter: Fingerprint
}

export interface CaseOptions {
  /** Keep the case's own keys, for a case that sets up the next. */
  keep?: boolean
  /** Answers that miss the contract in a way known and being fixed elsewhere: only the rest of the case is checked. */
  inFlight?: (answer: Answer) => boolean
}

/**
 * One hostile request, checked as the contract asks: its answer is 2xx, 3xx or 4xx (5xx only as 503),
 * every error is problem+json; Redis was not held longer than the busy bound by any one command; Redis
 * answers PING and /health answers 200 afterwards; and no key but the case's own (`ownKeys`, full Redis
 * keys) changed. The case's own keys are deleted afterwards (unless `keep`), so that cases do not meet
 * each other.
 */
export async function runCase (rig: Rig, label: string, ownKeys: readonly string[],
  send: () => Promise<Answer>, { keep = false, inFlight }: CaseOptions = {}): Promise<CaseReport> {
  const own = new Set(ownKeys)
  const before = await fingerprint(rig.redis)
  await rig.busy.reset()
  const started = performance.now()
  if (TRACE) process.stderr.write(`abuse case: ${label}\n`)
  const answer = await send()
  if (TRACE) process.stderr.write(`abuse case answered ${answer.statusCode} in ${(performance.now() - started).toFixed(1)} ms: ${answer.body.slice(0, 160)}\n`)
  const busiest = await within(rig.busy.read(label), 'SLOWLOG')
  rig.statuses.set(answer.statusCode, (rig.statuses.get(answer.statusCode) ?? 0) + 1)
  if (!inFlight?.(answer)) expectContractAnswer(answer, label)
  busiest.expectWithinBound()
  expect(await within(rig.redis.ping(), 'PING'), 'Redis answers PING').toBe('PONG')
  const health = await rig.app.inject({ method: 'GET', url: '/health' })
  expect(health.statusCode, '/health answers 200').toBe(200)
  const after = await within(fingerprint(rig.redis), 'the fingerprint')
  const [ownBefore, ownAfter] = [before.only(own), after.only(own)]
  expect(after.without(own).changesFrom(before.without(own)), `keys outside the case changed (${label})`).toEqual([])
  const report = { answer, busyMs: busiest.ms, ownBefore, ownAfter }
  if (keep) return report
  if (ownKeys.length > 0) await rig.redis.del([...ownKeys])
  if (ownKeys.some((key) => rig.sentinels.has(key))) await sentinels(rig.redis, rig.prefix)
  return report
}

/** Redis, alive, answers the rig at once: a Redis that has died or hangs fails the case in 5 s. */
async function within<T> (work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer ${what} within 5 s`)), 5000)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** 2xx, 3xx, 4xx or 503; an error is an RFC 9457 problem from the registry, its status the answer's. */
export function expectContractAnswer (answer: Answer, label = ''): void {
  const { statusCode } = answer
  expect(statusCode >= 200 && (statusCode < 500 || statusCode === 503), `status ${statusCode} for ${label}: ${answer.body.slice(0, 300)}`).toBe(true)
  if (statusCode < 400) return
  expect(String(answer.headers['content-type']), `content type of a ${statusCode} for ${label}`).toMatch(/^application\/problem\+json/)
  if (answer.body === '') return // HEAD
  const problem = JSON.parse(answer.body) as Record<string, unknown>
  expect(problem, `problem for ${label}`).toMatchObject({ status: statusCode, code: expect.stringMatching(/^DOCS_ERR_[A-Z_]+$/) })
  expect(problem.type).toMatch(/^\/problems\/[a-z-]+$/)
  expect(typeof problem.title).toBe('string')
  expect(typeof problem.detail).toBe('string')
  // A problem of a request carries its id, the same as in the header, and always well formed whatever was sent.
  const requestId = answer.headers['x-request-id']
  if (problem.requestId !== undefined || requestId !== undefined) {
    expect(problem.requestId, `requestId of a ${statusCode} for ${label}`).toBe(requestId)
    expect(String(requestId)).toMatch(/^[A-Za-z0-9._:+/=@-]{1,128}$/)
  }
}

/** An inject response as an Answer. */
export function answerOf (response: { statusCode: number, headers: Answer['headers'], body: string }): Answer {
  return { statusCode: response.statusCode, headers: response.headers, body: response.body }
}

/** ABUSE_SCALE multiplies every property's runs, for longer local runs (default 1). */
const SCALE = Number(process.env.ABUSE_SCALE ?? 1)

/** A property's runs at the current scale. */
export function scaled (runs: number): number {
  return Math.max(1, Math.round(runs * SCALE))
}

/**
 * fast-check's options for a property of `runs` cases: ABUSE_SEED (and ABUSE_PATH) replay a failure
 * that fast-check reported with its seed and path; shrinking stops in time for the test's own timeout.
 */
export function propertyOptions (runs: number): fc.Parameters<unknown> {
  const seed = process.env.ABUSE_SEED
  const path = process.env.ABUSE_PATH
  return {
    numRuns: scaled(runs),
    ...(seed ? { seed: Number(seed) } : {}),
    ...(path ? { path } : {}),
    interruptAfterTimeLimit: timeoutFor(runs) - 15_000,
    markInterruptAsFailure: true
  }
}

/** The vitest timeout of a property of `runs` cases: room for its cases and for shrinking a failure. */
export function timeoutFor (runs: number): number {
  return 60_000 + scaled(runs) * 200
}

/** Keys of the case's document: the JSON key, its version record, the namespace's event log and the long changes kept beside it. */
export function documentKeys (rig: Rig, key: string | undefined): string[] {
  return key === undefined ? [] : [rig.prefix + key, versionKeyOf(rig.prefix, key), rig.prefix + LOG_SUFFIX, rig.prefix + LOG_SUFFIX + KEPT_CHANGES_SUFFIX]
}
