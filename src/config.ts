import envSchema from 'env-schema'
import type { FromSchema } from 'json-schema-to-ts'
import { availableParallelism } from 'node:os'
import { accessEnvironmentSchema, accessSettingsFrom, type AccessSettings } from './access/settings.js'
import { parseRateLimit, type RateLimits } from './access/rate-limit.js'
import { parseCorsOrigins, type CorsOrigins } from './http/cors.js'
import type { HttpServerSettings } from './http/server.js'
import { clusterNodesOf, type RedisConnection } from './redis/connection.js'
import type { ValidationSettings } from './collections/validation-pool.js'
import type { EventFeedSettings } from './documents/store/context.js'

/** The process environment the server reads, validated once before fastify exists. */
export const environmentSchema = {
  type: 'object',
  properties: {
    HOST: { type: 'string', default: '127.0.0.1' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    // Segments of unreserved characters, none starting with a dot: nothing a router reads as a parameter
    // or a client normalises away.
    BASE_PATH: { type: 'string', maxLength: 256, pattern: '^(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$', default: '' },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info'
    },
    LOG_REQUESTS: { type: 'boolean', default: false },
    REDIS_URL: { type: 'string', pattern: '^rediss?://' },
    REDIS_CLUSTER_NODES: { type: 'string', minLength: 1 },
    DATA_DIR: { type: 'string', minLength: 1, default: 'data' },
    KEY_PREFIX: { type: 'string', default: 'jsondocs:' },
    COLLECTION_SEPARATOR: { type: 'string', minLength: 1, maxLength: 16, pattern: '^[^\\u0000-\\u001f\\u007f]+$', default: ':' },
    BODY_LIMIT: { type: 'integer', minimum: 2, default: 1048576 },
    MAX_DEPTH: { type: 'integer', minimum: 1, maximum: 120, default: 100 },
    MAX_DOCUMENT_BYTES: { type: 'integer', minimum: 1024, default: 1048576 },
    MAX_REPLY_BYTES: { type: 'integer', minimum: 1024, default: 4194304 },
    MAX_WORK_BYTES: { type: 'integer', minimum: 1024, default: 2097152 },
    MAX_JSONPATH_VALUES: { type: 'integer', minimum: 1, default: 250000 },
    REDIS_TIMEOUT_MS: { type: 'integer', minimum: 1, default: 2000 },
    // RediSearch's TIMEOUT for each command of a query: see docs/queries.md.
    QUERY_TIMEOUT_MS: { type: 'integer', minimum: 1, default: 500 },
    // On a Redis Cluster, the matches of a query one master may answer for the service to order: see Redis Cluster in docs/operations.md.
    MAX_CLUSTER_MATCHES: { type: 'integer', minimum: 1, maximum: 100000, default: 10000 },
    MAX_AGGREGATE_MATCHES: { type: 'integer', minimum: 1, maximum: 1000000, default: 100000 },
    // Replicas every write waits for (WAIT) before it is acknowledged: see Replicas and failover in docs/operations.md.
    WRITE_REPLICAS: { type: 'integer', minimum: 0, maximum: 16, default: 0 },
    WRITE_REPLICAS_TIMEOUT_MS: { type: 'integer', minimum: 1, default: 1000 },
    RETRY_AFTER_SECONDS: { type: 'integer', minimum: 0, default: 1 },
    CACHE_MAX_ENTRIES: { type: 'integer', minimum: 0, default: 1000 },
    MAX_CONNECTIONS: { type: 'integer', minimum: 1, default: 4096 },
    HEADERS_TIMEOUT_MS: { type: 'integer', minimum: 1, default: 10000 },
    REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 1, default: 30000 },
    IDLE_TIMEOUT_MS: { type: 'integer', minimum: 1, default: 5000 },
    MAX_UPLOADS: { type: 'integer', minimum: 1, default: 2 },
    MAX_WAITING_UPLOADS: { type: 'integer', minimum: 0, default: 64 },
    MAX_VALIDATION_MS: { type: 'integer', minimum: 1, default: 1000 },
    MAX_VALIDATION_MEMORY_MB: { type: 'integer', minimum: 16, default: 256 },
    // Service processes on one port (node's cluster module): see Many instances in docs/operations.md.
    WORKERS: { type: 'integer', minimum: 1, maximum: 64, default: 1 },
    // Per service process; by default the cores but one (left to the event loops and Redis), shared
    // among the WORKERS: see docs/collections.md.
    VALIDATION_WORKERS: { type: 'integer', minimum: 1 },
    ...accessEnvironmentSchema,
    METRICS_PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    CORS_ORIGINS: { type: 'string' },
    // Per credential, or per client address without one; `off` to disable. See Rate limits in docs/access.md.
    RATE_LIMIT: { type: 'string', default: '600/minute' },
    // Live changes: see docs/live.md. Entries kept per document (0: no feed, streams answer 404), for how long.
    EVENTS_MAXLEN: { type: 'integer', minimum: 0, maximum: 1000000, default: 1000 },
    EVENTS_RETENTION_MS: { type: 'integer', minimum: 1000, default: 3600000 },
    EVENTS_FEED_MAXLEN: { type: 'integer', minimum: 0, maximum: 10000000, default: 100000 },
    EVENTS_MAX_ENTRY_BYTES: { type: 'integer', minimum: 256, maximum: 1048576, default: 16384 },
    STREAM_HEARTBEAT_MS: { type: 'integer', minimum: 100, default: 15000 },
    MAX_STREAMS: { type: 'integer', minimum: 0, default: 1000 },
    STREAM_TICKET_TTL_MS: { type: 'integer', minimum: 1000, maximum: 3600000, default: 300000 },
    // Pages of events per minute a credential's streams may read to catch up: see docs/live.md.
    STREAM_CATCH_UP_READS: { type: 'integer', minimum: 1, maximum: 100000, default: 100 }
  },
  required: ['HOST', 'PORT', 'BASE_PATH', 'LOG_LEVEL', 'DATA_DIR', 'KEY_PREFIX', 'COLLECTION_SEPARATOR', 'BODY_LIMIT', 'MAX_DEPTH',
    'MAX_DOCUMENT_BYTES', 'MAX_REPLY_BYTES', 'MAX_WORK_BYTES', 'MAX_JSONPATH_VALUES',
    'REDIS_TIMEOUT_MS', 'QUERY_TIMEOUT_MS', 'MAX_CLUSTER_MATCHES', 'MAX_AGGREGATE_MATCHES', 'WRITE_REPLICAS', 'WRITE_REPLICAS_TIMEOUT_MS', 'RETRY_AFTER_SECONDS', 'CACHE_MAX_ENTRIES', 'LOG_REQUESTS', 'MAX_CONNECTIONS', 'HEADERS_TIMEOUT_MS',
    'REQUEST_TIMEOUT_MS', 'IDLE_TIMEOUT_MS', 'MAX_UPLOADS', 'MAX_WAITING_UPLOADS', 'MAX_VALIDATION_MS',
    'MAX_VALIDATION_MEMORY_MB', 'WORKERS', 'AUTH_DISABLED', 'RATE_LIMIT', 'EVENTS_MAXLEN', 'EVENTS_RETENTION_MS', 'EVENTS_FEED_MAXLEN', 'EVENTS_MAX_ENTRY_BYTES',
    'STREAM_HEARTBEAT_MS', 'MAX_STREAMS', 'STREAM_TICKET_TTL_MS', 'STREAM_CATCH_UP_READS'],
  additionalProperties: true
} as const

export type Environment = FromSchema<typeof environmentSchema>

/**
 * What one request may cost, enforced before the work is done (see Cost limits in docs/api.md). Over a limit the
 * answer is 422 DOCS_ERR_LIMIT_EXCEEDED naming the setting, and nothing is written.
 */
export interface CostLimits {
  /** Longest RedisJSON text a document may have after any write. */
  documentBytes: number
  /** Longest answer a read may produce: JSONPath matches, a batch read. At least documentBytes. */
  replyBytes: number
  /** JSON text one request may make Redis walk beyond the write itself: patch copies, moves and tests, walks in Lua. */
  workBytes: number
  /** Values a JSONPath that may match several may make RedisJSON visit, as estimated before it runs. */
  jsonPathValues: number
}

/** What buildApp needs: everything explicit, nothing read from process.env. */
export interface AppConfig {
  redis: RedisConnection
  /** The path every route is served under ('' or such as '/api'), for a service mounted behind a prefix. */
  basePath: string
  /** Prefix of every Redis key the service touches; clients reach nothing outside it. */
  keyPrefix: string
  /** Splits a key into collection and id: `users:42` is document 42 of collection `users`. */
  collectionSeparator: string
  /** Largest accepted request body, in bytes. */
  bodyLimit: number
  /** Deepest nesting a stored document may reach (RedisJSON itself refuses 128). */
  maxDepth: number
  limits: CostLimits
  /** A Redis command slower than this ends the request with 503. */
  redisTimeoutMs: number
  /** RediSearch's TIMEOUT for each command of a query: past it, the query is refused (422). At most half of redisTimeoutMs. */
  queryTimeoutMs: number
  /** On a Redis Cluster, most matches of a query one master answers for the service to order (see the query runner). */
  maxClusterMatches: number
  /** Most documents an aggregation reads (see the aggregations). */
  maxAggregateMatches: number
  /** WRITE_REPLICAS: the replicas every write waits for, and how long; none when undefined. */
  writeReplicas?: { replicas: number, timeoutMs: number }
  retryAfterSeconds: number
  /** Replies of reads kept in the client-side cache, invalidated by Redis; 0 turns caching off. */
  cacheMaxEntries: number
  logLevel: Environment['LOG_LEVEL']
  /** An access log: a line when each request arrives and one when it is answered, at level info. */
  logRequests: boolean
  /** Connection limits and timeouts of the HTTP server. */
  http: HttpServerSettings
  /** The worker threads that compile collection schemas and validate documents, and what a request may spend there. */
  validation: ValidationSettings
  /** Who may do what: the admin token, JWTs, anonymous scopes (tokens themselves live in Redis). */
  access: AccessSettings
  /** Requests per window per credential (RATE_LIMIT), by budget: default and per right; none when off. */
  rateLimit?: RateLimits
  /** The origins browser apps may call from (CORS_ORIGINS); none when undefined: no CORS headers. */
  corsOrigins?: CorsOrigins
  /** A second listener serving `/metrics` alone, without a token (METRICS_PORT, on HOST). */
  metricsListener?: { host: string, port: number }
  /** What every write records of its changes (EVENTS_MAXLEN, EVENTS_RETENTION_MS). */
  events: EventFeedSettings
  /** Live change streams: heartbeat interval, how many one instance serves, how long a stream ticket opens them. */
  streams: StreamSettings
}

export interface StreamSettings {
  heartbeatMs: number
  max: number
  ticketTtlMs: number
  /** Catch-up reads (pages of events) beyond the first per minute, per credential, on every instance together. */
  catchUpReads: number
}

/** Reads and validates the environment; a bad value throws a sentence naming the variable. */
export function loadEnvironment (env: NodeJS.ProcessEnv = process.env): Environment {
  const environment = envSchema<Environment>({ schema: environmentSchema, data: env, dotenv: false })
  if (environment.MAX_REPLY_BYTES < environment.MAX_DOCUMENT_BYTES) {
    throw new Error('MAX_REPLY_BYTES must be at least MAX_DOCUMENT_BYTES: a whole document is a read\'s answer')
  }
  if (environment.WRITE_REPLICAS > 0 && environment.WRITE_REPLICAS_TIMEOUT_MS >= environment.REDIS_TIMEOUT_MS) {
    throw new Error('env/WRITE_REPLICAS_TIMEOUT_MS must be less than REDIS_TIMEOUT_MS: a write\'s wait for its replicas is part of its call to Redis')
  }
  if (environment.REDIS_CLUSTER_NODES !== undefined) {
    if (environment.REDIS_URL !== undefined) throw new Error('env: set REDIS_URL or REDIS_CLUSTER_NODES, not both')
    if (clusterNodesOf(environment.REDIS_CLUSTER_NODES) === undefined) {
      throw new Error('env/REDIS_CLUSTER_NODES must list host:port or redis:// URLs, comma-separated')
    }
  }
  if (environment.MAX_STREAMS >= environment.MAX_CONNECTIONS) {
    throw new Error('env/MAX_STREAMS must be less than MAX_CONNECTIONS: each stream holds a connection, and other requests need some')
  }
  if (environment.STREAM_HEARTBEAT_MS >= environment.REQUEST_TIMEOUT_MS) {
    throw new Error('env/STREAM_HEARTBEAT_MS must be less than REQUEST_TIMEOUT_MS: a stream silent that long is closed as stalled')
  }
  if (environment.HEADERS_TIMEOUT_MS > environment.REQUEST_TIMEOUT_MS) {
    throw new Error('env/HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS: the headers are part of the request')
  }
  if (environment.METRICS_PORT !== undefined && environment.METRICS_PORT !== 0 && environment.METRICS_PORT === environment.PORT) {
    throw new Error('env/METRICS_PORT must differ from PORT: it is a second listener, serving /metrics without a token')
  }
  // Checked before anything starts: a service that would serve every right to a network refuses here.
  accessSettingsFrom(environment)
  if (environment.CORS_ORIGINS !== undefined) parseCorsOrigins(environment.CORS_ORIGINS)
  parseRateLimit(environment.RATE_LIMIT)
  return environment
}

/** The app's share of the environment, given how Redis is reached. */
export function appConfigFrom (environment: Environment, redis: RedisConnection): AppConfig {
  return {
    redis,
    basePath: environment.BASE_PATH,
    keyPrefix: environment.KEY_PREFIX,
    collectionSeparator: environment.COLLECTION_SEPARATOR,
    bodyLimit: environment.BODY_LIMIT,
    maxDepth: environment.MAX_DEPTH,
    limits: {
      documentBytes: environment.MAX_DOCUMENT_BYTES,
      replyBytes: environment.MAX_REPLY_BYTES,
      workBytes: environment.MAX_WORK_BYTES,
      jsonPathValues: environment.MAX_JSONPATH_VALUES
    },
    redisTimeoutMs: environment.REDIS_TIMEOUT_MS,
    // A search is one call to Redis: it must end, refused, before the call's own deadline.
    queryTimeoutMs: Math.min(environment.QUERY_TIMEOUT_MS, Math.max(1, Math.floor(environment.REDIS_TIMEOUT_MS / 2))),
    maxClusterMatches: environment.MAX_CLUSTER_MATCHES,
    maxAggregateMatches: environment.MAX_AGGREGATE_MATCHES,
    ...(environment.WRITE_REPLICAS === 0 ? {} : { writeReplicas: { replicas: environment.WRITE_REPLICAS, timeoutMs: environment.WRITE_REPLICAS_TIMEOUT_MS } }),
    retryAfterSeconds: environment.RETRY_AFTER_SECONDS,
    cacheMaxEntries: environment.CACHE_MAX_ENTRIES,
    logLevel: environment.LOG_LEVEL,
    logRequests: environment.LOG_REQUESTS,
    http: {
      maxConnections: environment.MAX_CONNECTIONS,
      headersTimeoutMs: environment.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: environment.REQUEST_TIMEOUT_MS,
      idleTimeoutMs: environment.IDLE_TIMEOUT_MS,
      maxUploads: environment.MAX_UPLOADS,
      maxWaitingUploads: environment.MAX_WAITING_UPLOADS
    },
    validation: {
      maxMs: environment.MAX_VALIDATION_MS,
      memoryMb: environment.MAX_VALIDATION_MEMORY_MB,
      workers: environment.VALIDATION_WORKERS ?? Math.max(1, Math.floor((availableParallelism() - 1) / environment.WORKERS))
    },
    access: accessSettingsFrom(environment),
    events: { maxLen: environment.EVENTS_MAXLEN, retentionMs: environment.EVENTS_RETENTION_MS, feedMaxLen: environment.EVENTS_FEED_MAXLEN,
      maxEntryBytes: environment.EVENTS_MAX_ENTRY_BYTES },
    streams: { heartbeatMs: environment.STREAM_HEARTBEAT_MS, max: environment.MAX_STREAMS, ticketTtlMs: environment.STREAM_TICKET_TTL_MS,
      catchUpReads: environment.STREAM_CATCH_UP_READS },
    ...rateLimitOf(environment.RATE_LIMIT),
    ...(environment.CORS_ORIGINS === undefined ? {} : { corsOrigins: parseCorsOrigins(environment.CORS_ORIGINS) }),
    ...(environment.METRICS_PORT === undefined ? {} : { metricsListener: { host: environment.HOST, port: environment.METRICS_PORT } })
  }
}

function rateLimitOf (text: string): { rateLimit?: RateLimits } {
  const rateLimit = parseRateLimit(text)
  return rateLimit === undefined ? {} : { rateLimit }
}
