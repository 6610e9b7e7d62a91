import fp from 'fastify-plugin'
import { createClient } from 'redis'
import { BoundedClientSideCache, cacheableReads } from './cache.js'
import { clientOptions, describeConnection, reconnectDelay, type RedisConnection } from './connection.js'
import { watchConnection } from './connection-watch.js'
import { replicatedWrites, type CommandSender } from './replicated-writes.js'

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

/** Writes that wait for replicas use a connection each: at most this many wait at once. */
const REPLICATED_WRITE_CONNECTIONS = 32

/** Connection attempts at start-up before giving up; once connected, reconnection never stops. */
const STARTUP_ATTEMPTS = 5
/** Commands queued or awaiting replies before new ones fail: bounds memory while Redis stalls. */
const MAX_QUEUED_COMMANDS = 100_000

export type RedisClient = ReturnType<typeof createRedisClient>

declare module 'fastify' {
  interface FastifyInstance {
    redis: RedisClient
    /** What runs the scripts that write: `redis` itself, or with WRITE_REPLICAS a pool that waits for replicas. */
    redisWrites: CommandSender
  }
}

/**
 * A node-redis client that fails fast instead of queueing: while Redis is unreachable, commands are
 * rejected at once (the request ends in 503) and the client keeps reconnecting in the background.
 * Commands carry no node-redis timeout (its default is 5 s): it only covers the wait before a command
 * is written, costs an AbortSignal and a timer per command, and the store's deadline bounds every call.
 */
export function createRedisClient ({ connection, commandTimeoutMs, cacheMaxEntries = 0, trackedPrefix = '' }: RedisPluginOptions) {
  let connectedOnce = false
  const client = createClient({
    ...clientOptions(connection, commandTimeoutMs, (retries: number, cause: Error) => {
      if (!connectedOnce && retries >= STARTUP_ATTEMPTS) return cause
      return reconnectDelay(retries)
    }),
    modules: { text: cacheableReads },
    ...(cacheMaxEntries > 0 ? { clientSideCache: new BoundedClientSideCache({ maxEntries: cacheMaxEntries, trackedPrefix }) } : {}),
    commandsQueueMaxLength: MAX_QUEUED_COMMANDS
  })
  client.on('ready', () => { connectedOnce = true })
  return client
}

/**
 * Owns the Redis client: connects, proves RedisJSON is there, decorates `app.redis`, replaces its
 * connection when it breaks (the same object throughout), closes it.
 */
export default fp<RedisPluginOptions>(async function redisPlugin (app, options) {
  const client = createRedisClient(options)
  const where = describeConnection(options.connection)
  const watch = watchConnection(client, {
    connection: options.connection,
    timeoutMs: options.commandTimeoutMs,
    onReplace: (cause) => app.log.warn(`redis (${where}): replacing a broken connection, its pending calls failed: ${cause}`)
  })
  client.on('error', (error: Error) => {
    // Errors of the socket come once it is down; one while it is up is a reply node-redis could not decode.
    if (client.isReady) watch.broken(`a reply could not be decoded (${error.message})`)
    else app.log.warn({ err: error }, `redis (${where}): ${error.message}`)
  })
  client.on('ready', () => app.log.info(`redis (${where}) ready`))

  try {
    await client.connect()
    await client.ping()
    const [jsonGet] = await client.sendCommand<unknown[]>(['COMMAND', 'INFO', 'JSON.GET'])
    if (!jsonGet) {
      throw new Error(`Redis at ${where} has no JSON module (RedisJSON); load it or use Redis 8`)
    }
  } catch (error) {
    watch.stop()
    client.destroy()
    throw error
  }

  app.decorate('redis', client)
  app.addHook('onClose', async () => {
    watch.stop()
    if (client.isReady) await client.close()
    else client.destroy()
  })
  if (options.writeReplicas === undefined) {
    app.decorate('redisWrites', client)
    return
  }
  const writes = await replicatedWrites({
    connection: options.connection, ...options.writeReplicas, connectTimeoutMs: options.commandTimeoutMs,
    connections: REPLICATED_WRITE_CONNECTIONS
  })
  app.decorate('redisWrites', writes.sender)
  app.addHook('onClose', () => writes.close())
}, { name: 'redis', fastify: '5.x' })
