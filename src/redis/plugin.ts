import fp from 'fastify-plugin'
import { createClient, createCluster } from 'redis'
import { BoundedClientSideCache, cacheableReads } from './cache.js'
import { clientOptions, clusterOptions, describeConnection, reconnectDelay, type RedisConnection } from './connection.js'
import { watchConnection } from './connection-watch.js'
import { clusterRedis } from './cluster.js'
import type { CommandSender, Redis } from './redis.js'
import { replicatedWrites } from './replicated-writes.js'
import { singleRedis } from './single.js'

export interface RedisPluginOptions {
  connection: RedisConnection
  /** Longest wait for a connection to Redis, and for each side of a check of a stalled connection; calls are bounded by the store's deadline. */
  commandTimeoutMs: number
  /** Client-side caching of reads, bounded to this many replies; 0 turns it off. */
  cacheMaxEntries?: number
  /** The key prefix whose changes Redis reports to the cache (all keys when empty). */
  trackedPrefix?: string
  /** WRITE_REPLICAS: replicas every write waits for, and for how long; none when undefined. */
  writeReplicas?: { replicas: number, timeoutMs: number }
}

/** Connection attempts at start-up before giving up; once connected, reconnection never stops. */
const STARTUP_ATTEMPTS = 5
/** Commands queued or awaiting replies before new ones fail: bounds memory while Redis stalls. */
const MAX_QUEUED_COMMANDS = 100_000

export type RedisClient = ReturnType<typeof createRedisClient>
export type RedisClusterClient = ReturnType<typeof createRedisCluster>

declare module 'fastify' {
  interface FastifyInstance {
    redis: Redis
    /** What runs the scripts that write: `redis` itself, or with WRITE_REPLICAS connections that wait for replicas. */
    redisWrites: CommandSender
  }
}

function cacheOf ({ cacheMaxEntries = 0, trackedPrefix = '' }: RedisPluginOptions) {
  return cacheMaxEntries > 0 ? { clientSideCache: new BoundedClientSideCache({ maxEntries: cacheMaxEntries, trackedPrefix }) } : {}
}

/**
 * A node-redis client that fails fast instead of queueing: while Redis is unreachable, commands are
 * rejected at once (the request ends in 503) and the client keeps reconnecting in the background.
 * Commands carry no node-redis timeout (its default is 5 s): it only covers the wait before a command
 * is written, costs an AbortSignal and a timer per command, and the store's deadline bounds every call.
 */
export function createRedisClient (options: RedisPluginOptions) {
  let connectedOnce = false
  const client = createClient({
    ...clientOptions(options.connection, options.commandTimeoutMs, (retries: number, cause: Error) => {
      if (!connectedOnce && retries >= STARTUP_ATTEMPTS) return cause
      return reconnectDelay(retries)
    }),
    modules: { text: cacheableReads },
    ...cacheOf(options),
    commandsQueueMaxLength: MAX_QUEUED_COMMANDS
  })
  client.on('ready', () => { connectedOnce = true })
  return client
}

/**
 * A node-redis cluster client over REDIS_CLUSTER_NODES, with the same settings for every node's
 * connection, and one client-side cache for them all.
 */
export function createRedisCluster (options: RedisPluginOptions & { connection: { clusterNodes: string[] } }) {
  const shared = clusterOptions(options.connection, options.commandTimeoutMs)
  return createCluster({
    ...shared,
    defaults: { ...shared.defaults, commandsQueueMaxLength: MAX_QUEUED_COMMANDS },
    modules: { text: cacheableReads },
    ...cacheOf(options)
  })
}

/** Connects to Redis and proves RedisJSON is there; on failure, leaves nothing open. */
async function connected (redis: Redis, close: () => void, where: string): Promise<void> {
  try {
    await redis.ping()
    const [jsonGet] = await redis.send<unknown[]>(undefined, ['COMMAND', 'INFO', 'JSON.GET'])
    if (!jsonGet) throw new Error(`Redis at ${where} has no JSON module (RedisJSON); load it or use Redis 8`)
  } catch (error) {
    close()
    throw error
  }
}

/**
 * Owns the connection to Redis, one server or a cluster: connects, proves RedisJSON is there, decorates
 * `app.redis`, replaces a single server's connection when it breaks (the same object throughout), closes it.
 */
export default fp<RedisPluginOptions>(async function redisPlugin (app, options) {
  const where = describeConnection(options.connection)
  const { connection } = options
  if ('clusterNodes' in connection) {
    const cluster = createRedisCluster({ ...options, connection })
    cluster.on('node-error', (error: Error, node: { host?: string, port?: number }) =>
      app.log.warn({ err: error }, `redis (${node.host ?? '?'}:${node.port ?? '?'}): ${error.message}`))
    await cluster.connect()
    const redis = clusterRedis(cluster)
    await connected(redis, () => cluster.destroy(), where)
    app.log.info(`redis (${where}) ready: ${cluster.masters.length} masters`)
    app.decorate('redis', redis)
    app.addHook('onClose', async () => { await redis.close().catch(() => cluster.destroy()) })
  } else {
    const client = createRedisClient(options)
    const watch = watchConnection(client, {
      connection,
      timeoutMs: options.commandTimeoutMs,
      onReplace: (cause) => app.log.warn(`redis (${where}): replacing a broken connection, its pending calls failed: ${cause}`)
    })
    client.on('error', (error: Error) => {
      // Errors of the socket come once it is down; one while it is up is a reply node-redis could not decode.
      if (client.isReady) watch.broken(`a reply could not be decoded (${error.message})`)
      else app.log.warn({ err: error }, `redis (${where}): ${error.message}`)
    })
    client.on('ready', () => app.log.info(`redis (${where}) ready`))
    const close = () => { watch.stop(); client.destroy() }
    await client.connect().catch((error: unknown) => { close(); throw error })
    const redis = singleRedis(client)
    await connected(redis, close, where)
    app.decorate('redis', redis)
    app.addHook('onClose', async () => {
      watch.stop()
      if (client.isReady) await client.close()
      else client.destroy()
    })
  }
  if (options.writeReplicas === undefined) {
    app.decorate('redisWrites', app.redis)
    return
  }
  const writes = await replicatedWrites({ ...options.writeReplicas, connection, commandTimeoutMs: options.commandTimeoutMs })
  app.decorate('redisWrites', writes.sender)
  app.addHook('onClose', () => writes.close())
}, { name: 'redis', fastify: '5.x' })
