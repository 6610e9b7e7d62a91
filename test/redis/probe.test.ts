import { describe, expect, it } from 'vitest'
import { createRedisClient, type RedisClient } from '../../src/redis/plugin.js'
import { redisAnswers } from '../../src/redis/probe.js'
import { whenDone } from '../helpers/cleanup.js'
import { eventually, startOwnRedis } from '../helpers/local-redis.js'

async function ownRedis () {
  const redis = await startOwnRedis()
  const connection = { socketPath: redis.socketPath }
  const admin = createRedisClient({ connection, commandTimeoutMs: 5000 })
  admin.on('error', () => {})
  await admin.connect()
  whenDone(() => admin.destroy())
  return { redis, connection, admin }
}

async function connectionsOf (admin: RedisClient): Promise<number> {
  return (await admin.sendCommand<string>(['CLIENT', 'LIST'])).trim().split('\n').length
}

describe('the probe of Redis on a connection of its own', () => {
  it('answers true when Redis runs scripts, and leaves no connection behind', async () => {
    const { connection, admin } = await ownRedis()
    expect(await redisAnswers(connection, 1000)).toBe(true)
    await eventually(async () => await connectionsOf(admin) === 1)
  })

  it.each(['ALL', 'WRITE'])('answers false within its timeout under CLIENT PAUSE %s, and leaves no connection behind', async (mode) => {
    const { connection, admin } = await ownRedis()
    await admin.sendCommand(['CLIENT', 'PAUSE', '1000', mode])
    const started = Date.now()
    expect(await redisAnswers(connection, 300)).toBe(false)
    expect(Date.now() - started).toBeLessThan(1000)
    await eventually(async () => await connectionsOf(admin) === 1)
  })

  it('answers false when Redis is down', async () => {
    const { redis, connection } = await ownRedis()
    await redis.stop()
    expect(await redisAnswers(connection, 1000)).toBe(false)
  })
})
