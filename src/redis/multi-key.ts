import type { Redis } from './redis.js'
import { groupsBySlot } from './slots.js'

/**
 * A read over many keys (MGET, JSON.MGET), whose replies come one per key, in their order. On a cluster,
 * where a command's keys must share a slot, it runs once per slot, every command sent at once: node-redis
 * writes those bound for one node together. `command` makes the command of some keys.
 */
export async function readKeys<T> (redis: Redis, keys: readonly string[], command: (keys: string[]) => string[]): Promise<T[]> {
  const groups = groupsBySlot(keys, redis.isCluster)
  if (groups.length === 1) return await redis.send<T[]>(keys[0], command([...keys]))
  const replies = await Promise.all(groups.map((group) => redis.send<T[]>(keys[group[0]!], command(group.map((index) => keys[index]!)))))
  const values = new Array<T>(keys.length)
  groups.forEach((group, position) => group.forEach((index, offset) => { values[index] = replies[position]![offset]! }))
  return values
}
