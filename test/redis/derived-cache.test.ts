import { afterAll, describe, expect, inject, it } from 'vitest'
import { cacheKeyOf, type BoundedClientSideCache } from '../../src/redis/cache.js'
import { DerivedCache } from '../../src/redis/derived-cache.js'
import { createRedisClient, createRedisCluster, type RedisClient } from '../../src/redis/plugin.js'
import { connectRedis, uniqueKey } from '../helpers/app.js'
import { eventually } from '../helpers/local-redis.js'

const connection = inject('redis')
// On a cluster, its client (the same typed commands), for what this file uses of one.
const client = 'clusterNodes' in connection
  ? createRedisCluster({ connection, commandTimeoutMs: 5000, cacheMaxEntries: 100 }) as unknown as RedisClient
  : createRedisClient({ connection, commandTimeoutMs: 5000, cacheMaxEntries: 100 })
await client.connect()
const cache = client.clientSideCache as BoundedClientSideCache
const other = await connectRedis()
afterAll(async () => { await client.close() })

/** A key holding text, read once through the caching client: the reply it now caches. */
async function cachedKey (text: string): Promise<[string, string | null]> {
  const key = uniqueKey()
  await other.set(key, text)
  return [key, await client.get(key)]
}

describe('values derived from cached replies', () => {
  it('are served while the replies stay cached, and dropped once Redis invalidates one', async () => {
    const derived = new DerivedCache<string>(cache, 10)
    const [key, reply] = await cachedKey('a')
    derived.remember('answer', [[['GET', key], reply]], 'derived from a')
    expect(derived.get('answer')).toBe('derived from a')
    expect(derived.hits).toBe(1)
    await other.set(key, 'b')
    await eventually(async () => derived.get('answer') === undefined, 1000)
    expect(derived.size).toBe(0)
  })

  it('are not kept when a write invalidated the reply before the value was built', async () => {
    const derived = new DerivedCache<string>(cache, 10)
    const [key, reply] = await cachedKey('a')
    await other.set(key, 'b')
    await eventually(async () => !cache.has(cacheKeyOf(['GET', key])), 1000)
    derived.remember('answer', [[['GET', key], reply]], 'derived from a')
    expect(derived.get('answer')).toBeUndefined()
  })

  it('are not kept when the cached reply is not the one they were built from', async () => {
    const derived = new DerivedCache<string>(cache, 10)
    const [key] = await cachedKey('a')
    derived.remember('answer', [[['GET', key], 'z']], 'derived from z')
    expect(derived.get('answer')).toBeUndefined()
  })

  it('are all dropped when the cache is cleared, as on a lost connection', async () => {
    const derived = new DerivedCache<string>(cache, 10)
    const [key, reply] = await cachedKey('a')
    derived.remember('answer', [[['GET', key], reply]], 'derived from a')
    cache.clear()
    expect(derived.get('answer')).toBeUndefined()
  })

  it('are bounded in number, the oldest dropped first', async () => {
    const derived = new DerivedCache<number>(cache, 2)
    const [key, reply] = await cachedKey('a')
    for (const index of [1, 2, 3]) derived.remember(`answer ${index}`, [[['GET', key], reply]], index)
    expect(derived.size).toBe(2)
    expect([derived.get('answer 1'), derived.get('answer 2'), derived.get('answer 3')]).toEqual([undefined, 2, 3])
  })
})
