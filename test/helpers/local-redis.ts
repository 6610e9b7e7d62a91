import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { whenDone } from './cleanup.js'
import { provisionLocalRedis } from './provision.js'
import { startLocalRedis, type LocalRedis, type LocalRedisOptions } from '../../src/redis/local-server.js'

/** A redis-server of the test's own, to stop, pause or start without the module, whatever the suite uses. */
export async function startOwnRedis (options: Partial<LocalRedisOptions> = {}): Promise<LocalRedis> {
  provisionLocalRedis()
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-own-'))
  const redis = await startLocalRedis({ dir, persistent: false, ...options })
  whenDone(async () => {
    await redis.stop()
    rmSync(dir, { recursive: true, force: true })
  })
  return redis
}

/** Polls until check() holds, for at most timeoutMs. */
export async function eventually (check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
