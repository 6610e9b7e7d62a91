import { createCluster, createClient } from 'redis'
import { describe, expect, it } from 'vitest'
import { keyBeside, slotOf } from '../../src/redis/slots.js'
import { buildTestApp, get, versionKeyOf } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { startLocalCluster } from '../helpers/local-cluster.js'
import { startOwnRedis } from '../helpers/local-redis.js'

const KEYS = ['users:1', '{x}', 'a{b}c', '}a', 'a}b', '{}', 'a{', '{{a}}', '😀{é}', 'é', '', 'a\u0000b', 'x'.repeat(300)]

describe('storage layout 2: whatever a document\'s key, its derived keys share its hash slot', async () => {
  const { nodes } = await startLocalCluster(3)
  const cluster = createCluster({ rootNodes: nodes.map((node) => ({ url: `redis://${node}` })) })
  await cluster.connect()
  whenDone(() => cluster.close())
  const redisSlot = (key: string) => cluster.sendCommand<number>(undefined, true, ['CLUSTER', 'KEYSLOT', key])

  it.each(KEYS)('%j', async (key) => {
    for (const prefix of ['jsondocs:', '', 'a b:']) {
      const doc = prefix + key
      const version = keyBeside(doc, prefix, key + '\u001fversion')
      expect(slotOf(doc)).toBe(await redisSlot(doc))
      expect(slotOf(version)).toBe(await redisSlot(version))
      expect(await redisSlot(version)).toBe(await redisSlot(doc))
    }
  })
})

describe('the upgrade from layout 1', () => {
  it('moves every version record beside its document once, keeping its time to live, and keeps the newer of two', async () => {
    const redis = await startOwnRedis()
    const admin = await createClient({ socket: { path: redis.socketPath, reconnectStrategy: false } }).connect()
    whenDone(() => admin.destroy())
    const prefix = 'up:'
    for (const key of ['a', '{b}', 'c}']) {
      await admin.sendCommand(['JSON.SET', prefix + key, '$', `{"key":${JSON.stringify(key)}}`])
      await admin.sendCommand(['SET', `${prefix}${key}\u001fversion`, `17${key.length}`, 'PX', '600000'])
      await admin.sendCommand(['PEXPIRE', prefix + key, '600000'])
    }
    // A record already in layout 2 (written by an upgraded instance) is the newer one.
    await admin.sendCommand(['SET', versionKeyOf(prefix, 'a'), '99'])

    const app = await buildTestApp({ redis: { socketPath: redis.socketPath }, keyPrefix: prefix })
    expect((await get(app, '/docs/a')).headers.etag).toBe('"99"')
    expect((await get(app, '/docs/%7Bb%7D')).headers.etag).toBe('"173"')
    expect((await get(app, '/docs/c%7D')).headers.etag).toBe('"172"')
    for (const key of ['a', '{b}', 'c}']) expect(await admin.exists(`${prefix}${key}\u001fversion`)).toBe(0)
    expect(await admin.pTTL(versionKeyOf(prefix, '{b}'))).toBeGreaterThan(500_000)

    // Marked as done: a second start reads the mark, and moves nothing.
    await admin.sendCommand(['CONFIG', 'RESETSTAT'])
    await buildTestApp({ redis: { socketPath: redis.socketPath }, keyPrefix: prefix })
    expect(String(await admin.sendCommand(['INFO', 'commandstats']))).not.toMatch(/cmdstat_scan:/)
  })
})
