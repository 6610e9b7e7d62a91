import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'
import { describe, expect, it } from 'vitest'
import { claimFolder } from '../../src/redis/folder-lock.js'
import { startLocalRedis } from '../../src/redis/local-server.js'
import { probeSocket } from '../../src/redis/socket-probe.js'
import { whenDone } from '../helpers/cleanup.js'
import { startUntiedRedis } from '../helpers/local-redis.js'
import { provisionLocalRedis } from '../helpers/provision.js'

function folder (): string {
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-local-'))
  whenDone(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('claiming a data folder', () => {
  it('refuses a second claim, naming the holder, until the first is released', async () => {
    const dir = folder()
    const first = await claimFolder(dir)
    await expect(claimFolder(dir)).rejects.toThrow(`Another jsondocs (pid ${process.pid}) is using ${dir}`)
    await first.release()
    const second = await claimFolder(dir)
    await second.release()
  })

  it('reaches the same folder through a symlink', async () => {
    const dir = folder()
    const link = join(folder(), 'link')
    symlinkSync(dir, link)
    const first = await claimFolder(dir)
    try {
      await expect(claimFolder(link)).rejects.toThrow('Another jsondocs')
    } finally {
      await first.release()
    }
  })
})

describe('the local Redis on a folder', () => {
  provisionLocalRedis()

  it('is Redis 8 with the JSON and Search modules, like the redis:8 image', async () => {
    const redis = await startLocalRedis({ dir: folder(), persistent: false })
    whenDone(() => redis.stop())
    const client = createClient({ socket: { path: redis.socketPath, reconnectStrategy: false } })
    await client.connect()
    whenDone(() => client.close())
    expect(await client.info('server')).toMatch(/^redis_version:8\./m)
    const modules = JSON.stringify(await client.sendCommand(['MODULE', 'LIST']))
    expect(modules).toContain('"ReJSON"')
    expect(modules).toContain('"search"')
    expect(await client.sendCommand(['JSON.SET', 'k', '$', '{"a":1}'])).toBe('OK')
    expect(await client.sendCommand(['FT._LIST'])).toEqual([])
  })

  it('holds its folder while it runs and releases it when stopped', async () => {
    const dir = folder()
    const redis = await startLocalRedis({ dir, persistent: false })
    whenDone(() => redis.stop())
    await expect(startLocalRedis({ dir, persistent: false })).rejects.toThrow('Another jsondocs')
    await redis.stop()
    const next = await startLocalRedis({ dir, persistent: false })
    await next.stop()
    await redis.start()
    expect(await probeSocket(redis.socketPath)).toBe('answers')
  })

  it('refuses a leftover Redis that still has clients, and leaves it running', async () => {
    const dir = folder()
    await startUntiedRedis(dir)
    const socketPath = join(dir, 'redis.sock')
    const client = await createClient({ socket: { path: socketPath, reconnectStrategy: false } }).connect()
    whenDone(() => client.destroy())
    await expect(startLocalRedis({ dir, persistent: true })).rejects.toThrow(/has 1 client\(s\) connected though no jsondocs holds/)
    expect(await client.ping()).toBe('PONG')
  })
})
