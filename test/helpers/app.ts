import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { FastifyBaseLogger, FastifyInstance, LightMyRequestResponse } from 'fastify'
import { inject } from 'vitest'
import { whenDone } from './cleanup.js'
import { buildApp, type BuildOptions } from '../../src/app.js'
import { ValidationPool } from '../../src/collections/validation-pool.js'
import { appConfigFrom, loadEnvironment, type AppConfig, type CostLimits } from '../../src/config.js'
import { createRedisClient, createRedisCluster, type RedisClient, type RedisClusterClient } from '../../src/redis/plugin.js'
import { derivedKeysOf, VERSION_SUFFIX } from '../../src/documents/store/context.js'

/**
 * What a test may change of the configuration: any setting, any one of the cost limits, and `adminToken`:
 * access enforced with that admin token, every other request having every right on every key (what the
 * admin alone may do, `/tokens` and `/metrics`, then needs the token).
 */
export type TestOverrides = Omit<Partial<AppConfig>, 'limits'> & { limits?: Partial<CostLimits>, adminToken?: string }

/** The service's configuration at its defaults (the environment schema's), on the suite's Redis, with a key prefix of its own. */
export function testConfig ({ limits, adminToken, ...overrides }: TestOverrides = {}): AppConfig {
  // Rate limits off unless a test sets one: a file's requests share one address.
  const defaults = appConfigFrom(loadEnvironment({ RATE_LIMIT: 'off' }), inject('redis'))
  return {
    ...defaults,
    keyPrefix: `test:${randomUUID()}:`,
    logLevel: 'silent',
    ...(adminToken === undefined
      ? {}
      : { access: { adminToken, anonymousScopes: [{ prefix: '', rights: ['read', 'write', 'schema'] }], open: false } }),
    ...overrides,
    limits: { ...defaults.limits, ...limits }
  }
}

/**
 * The validation pool the test apps of this process share when they keep the default validation settings:
 * started once, rather than a worker thread per app (about a second of CPU each, most of what building an
 * app cost). Its workers never keep the process alive.
 */
let sharedValidation: Promise<ValidationPool> | undefined

function sharedValidationPool (settings: AppConfig['validation']): Promise<ValidationPool> {
  sharedValidation ??= (async () => {
    const pool = new ValidationPool(settings, silentLogger)
    await pool.start()
    return pool
  })()
  return sharedValidation
}

const ignore = (): void => {}
const silentLogger = { level: 'silent', fatal: ignore, error: ignore, warn: ignore, info: ignore, debug: ignore, trace: ignore, silent: ignore,
  child: () => silentLogger } as unknown as FastifyBaseLogger

/**
 * An app on the suite's Redis with a key prefix of its own, closed after the file's tests. Apps at the
 * default validation settings share this process's validation pool.
 */
export async function buildTestApp (overrides: TestOverrides = {},
  options: BuildOptions = {}): Promise<FastifyInstance & { keyPrefix: string }> {
  const config = testConfig(overrides)
  const validation = overrides.validation === undefined && options.validation === undefined
    ? await sharedValidationPool(config.validation)
    : options.validation
  const app = await buildApp(config, { ...options, ...(validation === undefined ? {} : { validation }) })
  whenDone(() => app.close())
  return Object.assign(app, { keyPrefix: config.keyPrefix })
}

/**
 * A plain client on the suite's Redis, to look behind the service's back. On a cluster, one that routes
 * each command by its first key (FCALL and EVAL: their first declared key), the rest to any node.
 */
export async function connectRedis (): Promise<RedisClient> {
  const connection = inject('redis')
  if ('clusterNodes' in connection) {
    const cluster = createRedisCluster({ connection, commandTimeoutMs: 5000 })
    await cluster.connect()
    whenDone(() => cluster.close())
    return routedByFirstKey(cluster)
  }
  const client = createRedisClient({ connection, commandTimeoutMs: 5000 })
  await client.connect()
  whenDone(() => client.close())
  return client
}

type Headers = Record<string, string>

/** Sends raw JSON text, exactly as given. */
export function send (app: FastifyInstance, method: 'PUT' | 'PATCH' | 'POST', url: string, text: string,
  headers: Headers = {}, contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json') {
  return app.inject({ method, url, payload: text, headers: { 'content-type': contentType, ...headers } })
}

export function put (app: FastifyInstance, url: string, value: unknown, headers: Headers = {}) {
  return send(app, 'PUT', url, JSON.stringify(value), headers)
}

export function patch (app: FastifyInstance, url: string, value: unknown, headers: Headers = {}) {
  return send(app, 'PATCH', url, JSON.stringify(value), headers)
}

/** A JSON Patch (RFC 6902) request. */
export function jsonPatch (app: FastifyInstance, url: string, operations: unknown[], headers: Headers = {}) {
  return send(app, 'PATCH', url, JSON.stringify(operations), headers, 'application/json-patch+json')
}

/** POST of one operation or a list of them. */
export function operate (app: FastifyInstance, url: string, operations: unknown, headers: Headers = {}) {
  return send(app, 'POST', url, JSON.stringify(operations), headers)
}

export function get (app: FastifyInstance, url: string, headers: Headers = {}) {
  return app.inject({ method: 'GET', url, headers })
}

export interface SocketResponse {
  statusCode: number
  headers: Record<string, string>
  body: string
  /** Parses the body, typed as inject's responses are. */
  json: LightMyRequestResponse['json']
}

/**
 * A request over a real loopback socket, as users send them, through the service's own HTTP server;
 * the app starts listening on first use.
 */
export async function overSocket (app: FastifyInstance, method: 'GET' | 'HEAD', url: string,
  headers: Headers = {}): Promise<SocketResponse> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const response = await fetch(`http://127.0.0.1:${port}${url}`, { method, headers })
  const body = await response.text()
  return { statusCode: response.status, headers: Object.fromEntries(response.headers), body, json: () => JSON.parse(body) as never }
}

export function remove (app: FastifyInstance, url: string, headers: Headers = {}) {
  return app.inject({ method: 'DELETE', url, headers })
}

/** A document key unique to the calling test. */
export function uniqueKey (label = 'doc'): string {
  return `${label}-${randomUUID()}`
}

/** The Redis key of the version record of the document at `key`, under `keyPrefix` (in the document's hash slot). */
export function versionKeyOf (keyPrefix: string, key: string): string {
  return derivedKeysOf({ keyPrefix }, key, [VERSION_SUFFIX])[0]!
}

/** A command sent to every master of the suite's Redis (one, unless it is a cluster): their replies. */
export async function onEveryMaster<T> (redis: RedisClient, args: string[]): Promise<T[]> {
  const masters = (redis as unknown as Partial<RedisClusterClient>).masters
  if (!Array.isArray(masters)) return [await redis.sendCommand<T>(args)]
  const cluster = redis as unknown as RedisClusterClient
  return await Promise.all(masters.map(async (master) => (await cluster.nodeClient(master)).sendCommand<T>(args)))
}

/** Commands whose arguments name no key. */
const KEYLESS = new Set(['INFO', 'PING', 'FLUSHALL', 'FLUSHDB', 'FUNCTION', 'SCAN', 'KEYS', 'CONFIG', 'DBSIZE', 'SLOWLOG',
  'CLIENT', 'COMMAND', 'MEMORY', 'DEBUG', 'SCRIPT', 'TIME', 'WAIT', 'LATENCY', 'MODULE', 'CLUSTER', 'FT._LIST'])

/** The key a command is routed by on a cluster, as tests send them. */
function routingKeyOf (args: readonly string[]): string | undefined {
  const name = args[0]!.toUpperCase()
  if (KEYLESS.has(name)) return undefined
  if (name === 'FCALL' || name === 'EVAL' || name === 'EVALSHA' || name === 'FCALL_RO') return Number(args[2]) > 0 ? args[3] : undefined
  if (name.startsWith('FT.')) return undefined
  return args[1]
}

/** A cluster that takes the single client's sendCommand(args), for tests written against one Redis. */
function routedByFirstKey (cluster: RedisClusterClient): RedisClient {
  return new Proxy(cluster, {
    get (target, property, receiver) {
      if (property === 'sendCommand') return (args: string[]) => target.sendCommand(routingKeyOf(args), false, args)
      if (property === 'destroy') return () => target.destroy()
      return Reflect.get(target, property, receiver)
    }
  }) as unknown as RedisClient
}
