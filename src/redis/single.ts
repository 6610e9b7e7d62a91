import type { BoundedClientSideCache } from './cache.js'
import type { RedisClient } from './plugin.js'
import { nodeSender, type MasterNode, type Redis } from './redis.js'

/** One Redis server: every command goes to it, whatever its key. */
export function singleRedis (client: RedisClient): Redis {
  const sender = nodeSender(client)
  const only: MasterNode = { id: '', sender }
  return {
    isCluster: false,
    send: sender.send,
    cache: client.clientSideCache as BoundedClientSideCache | undefined,
    get: (key) => client.get(key),
    jsonGet: (key, path) => client.text.jsonGet(key, path),
    ping: () => client.ping(),
    masters: () => Promise.resolve([only]),
    master: (id) => Promise.resolve(id === '' ? only : undefined),
    owns: (clientId) => clientId === client._clientId,
    close: () => client.close()
  }
}
