import { createCluster } from 'redis'
import { describe, expect, it } from 'vitest'
import { whenDone } from '../helpers/cleanup.js'
import { startLocalCluster } from '../helpers/local-cluster.js'
import { eventually } from '../helpers/local-redis.js'

/*
 * The local Redis Cluster the scale-out work is tested on: three masters of the provisioned Redis 8
 * with both modules. What it holds for the service's design: keys sharing a hash tag share a slot and
 * may meet in one script; keys that do not are refused together; each master runs the Search module on
 * its own shard only.
 */
describe('a local 3-master cluster', async () => {
  const { nodes } = await startLocalCluster(3)
  const cluster = createCluster({ rootNodes: nodes.map((node) => ({ url: `redis://${node}` })), RESP: 3 })
  await cluster.connect()
  whenDone(() => cluster.close())

  it('forms, spreads keys over every master, and serves RedisJSON on each', async () => {
    expect(nodes).toHaveLength(3)
    expect(cluster.masters).toHaveLength(3)
    const keys = Array.from({ length: 30 }, (_, index) => `doc:${index}`)
    for (const key of keys) await cluster.sendCommand(key, false, ['JSON.SET', key, '$', `{"n":${key.length}}`])
    const perMaster = await Promise.all(cluster.masters.map(async (master) =>
      (await cluster.nodeClient(master)).sendCommand<number>(['DBSIZE'])))
    expect(perMaster.every((count) => count > 0)).toBe(true)
    expect(perMaster.reduce((sum, count) => sum + count, 0)).toBe(30)
  })

  it('runs a function over keys that share a hash tag, and refuses keys in two slots', async () => {
    const library = "#!lua name=cluster_probe\nredis.register_function('cluster_probe_copy', function(keys) return redis.call('COPY', keys[1], keys[2]) end)"
    for (const master of cluster.masters) await (await cluster.nodeClient(master)).sendCommand(['FUNCTION', 'LOAD', 'REPLACE', library])
    await cluster.sendCommand('p{users:42}', false, ['JSON.SET', 'p{users:42}', '$', '{"a":1}'])
    expect(await cluster.sendCommand('p{users:42}', false, ['FCALL', 'cluster_probe_copy', '2', 'p{users:42}', 'p{users:42}\u001fcopy'])).toBe(1)
    await cluster.sendCommand('a', false, ['SET', 'a', '1'])
    await expect(cluster.sendCommand('a', false, ['FCALL', 'cluster_probe_copy', '2', 'a', 'b'])).rejects.toThrow(/CROSSSLOT|different slots/)
  })

  it('answers a search from the shard it is sent to alone', async () => {
    // An index's name is a key: each master's index takes a name in one of its own slots.
    const indexOf = new Map<(typeof cluster.masters)[number], string>()
    for (let i = 0; indexOf.size < cluster.masters.length; i++) {
      const slot = await cluster.sendCommand<number>(undefined, true, ['CLUSTER', 'KEYSLOT', `probe:${i}`])
      const master = cluster.slots[slot]!.master
      if (!indexOf.has(master)) indexOf.set(master, `probe:${i}`)
    }
    for (const [master, index] of indexOf) {
      await (await cluster.nodeClient(master)).sendCommand(['FT.CREATE', index, 'ON', 'JSON', 'PREFIX', '1', 'doc:', 'SCHEMA', '$.n', 'AS', 'n', 'NUMERIC'])
    }
    const totalOn = async (master: (typeof cluster.masters)[number]) => {
      const reply: unknown = await (await cluster.nodeClient(master)).sendCommand(['FT.SEARCH', indexOf.get(master)!, '*', 'LIMIT', '0', '0', 'DIALECT', '2'])
      return Number((reply as { total_results?: number }).total_results ?? (reply as number[])[0])
    }
    // Each shard indexes the documents it held before the index, in the background.
    let counts: number[] = []
    await eventually(async () => {
      counts = await Promise.all(cluster.masters.map(totalOn))
      return counts.reduce((sum, count) => sum + count, 0) === 30
    })
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(30)
    expect(counts.every((count) => count < 30)).toBe(true)
  })
})
