import type { BoundedClientSideCache } from './cache.js'
import type { RedisClusterClient } from './plugin.js'
import { nodeSender, type MasterNode, type Redis } from './redis.js'

type Shard = RedisClusterClient['masters'][number]

/**
 * A Redis Cluster: each command goes to the master serving its key's slot (node-redis follows MOVED and
 * ASK), commands without keys to any node, and commands node-redis knows must reach every master
 * (FUNCTION LOAD) to each. A master is known by the lowest slot it serves: an id any instance can resolve.
 */
export function clusterRedis (cluster: RedisClusterClient): Redis {
  async function nodeOf (shard: Shard, slot: number): Promise<MasterNode> {
    return { id: String(slot), sender: nodeSender(await cluster.nodeClient(shard)) }
  }

  /** Each master with the lowest slot it serves, by slot. */
  function lowestSlots (): Array<[Shard, number]> {
    const lowest = new Map<Shard, number>()
    cluster.slots.forEach((slot, index) => { if (slot?.master && !lowest.has(slot.master)) lowest.set(slot.master, index) })
    return [...lowest]
  }

  return {
    isCluster: true,
    send: <T>(key: string | undefined, args: readonly string[]) => cluster.sendCommand<T>(key, false, [...args]),
    cache: cluster.clientSideCache as BoundedClientSideCache | undefined,
    get: (key) => cluster.get(key),
    jsonGet: (key, path) => cluster.text.jsonGet(key, path),
    ping: () => cluster.sendCommand(undefined, true, ['PING']),
    masters: () => Promise.all(lowestSlots().map(([shard, slot]) => nodeOf(shard, slot))),
    async master (id) {
      // A cursor of a single Redis names no master: the first.
      const slot = /^\d{1,5}$/.test(id) ? cluster.slots[Number(id)] : id === '' ? cluster.slots[0] : undefined
      return slot?.master ? await nodeOf(slot.master, Number(id || 0)) : undefined
    },
    owns (clientId) {
      for (const node of cluster.nodeByAddress.values()) if (node.client?._clientId === clientId) return true
      return false
    },
    close: () => cluster.close()
  }
}
