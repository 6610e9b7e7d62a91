import { createRedisClient, createRedisCluster } from '../redis/plugin.js'
import type { RedisConnection } from '../redis/connection.js'
import { nodeSender, type CommandSender } from '../redis/redis.js'
import { EventReader } from './event-reader.js'

/**
 * The shared reader of events streams, on a connection of its own: its reads block (or, on a cluster,
 * poll), which would hold up every other command of a shared connection. `redis` is the service's own
 * client, from which a blocking read is cut short when the streams to read change.
 */
export async function openReader (connection: RedisConnection, timeoutMs: number, redis: CommandSender,
  onError: (error: Error) => void): Promise<EventReader> {
  if ('clusterNodes' in connection) {
    const cluster = createRedisCluster({ connection, commandTimeoutMs: timeoutMs })
    cluster.on('error', onError)
    await cluster.connect()
    return new EventReader({
      sender: { send: <T>(key: string | undefined, args: readonly string[]) => cluster.sendCommand<T>(key, false, [...args]) },
      isCluster: true,
      unblock: async () => {},
      close: async () => { await cluster.close().catch(() => cluster.destroy()) }
    }, onError)
  }
  const client = createRedisClient({ connection, commandTimeoutMs: timeoutMs })
  client.on('error', onError)
  await client.connect()
  let id = String(await client.sendCommand(['CLIENT', 'ID']))
  // A reconnected client is a new client of Redis' with a new id.
  client.on('ready', () => { client.sendCommand(['CLIENT', 'ID']).then((fresh) => { id = String(fresh) }, () => undefined) })
  return new EventReader({
    sender: nodeSender(client),
    isCluster: false,
    unblock: async () => { await redis.send(undefined, ['CLIENT', 'UNBLOCK', id]) },
    close: async () => { if (client.isReady) await client.close(); else client.destroy() }
  }, onError)
}
