import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'
import { describe, expect, it } from 'vitest'
import { loadEnvironment } from '../src/config.js'
import { redisServersOn } from '../src/redis/leftover.js'
import { startServer } from '../src/server.js'
import { whenDone } from './helpers/cleanup.js'
import { startUntiedRedis } from './helpers/local-redis.js'
import { provisionLocalRedis } from './helpers/provision.js'
import { spawnService } from './helpers/service-process.js'

/**
 * A fresh DATA_DIR, where socket is the service's Redis; when the test ends, a Redis a failure left
 * serving it is killed (the folder's name is unique, so such a Redis is this test's) and it is removed.
 */
function dataFolder () {
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-crash-'))
  const socket = join(dir, 'redis', 'redis.sock')
  whenDone(() => {
    for (const pid of redisServersOn(socket)) process.kill(pid, 'SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })
  return { dir, socket }
}

/** The next start, in this process: quicker than another service process, and at once. */
async function startHere (dir: string): Promise<string> {
  const server = await startServer(loadEnvironment({ PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'silent' }))
  whenDone(() => server.close())
  return server.url
}

describe('a start on a data folder', () => {
  provisionLocalRedis()

  it('stops a Redis left over by an earlier jsondocs gracefully, and serves its data', async () => {
    const { dir, socket } = dataFolder()
    const leftover = await startUntiedRedis(join(dir, 'redis'))
    const leftoverExit = new Promise<number | string | null>((resolve) => leftover.once('exit', (code, signal) => resolve(code ?? signal)))
    const client = await createClient({ socket: { path: socket, reconnectStrategy: false } }).connect()
    await client.sendCommand(['JSON.SET', 'jsondocs:legacy', '$', '{"written":"to the leftover"}'])
    client.destroy()

    const url = await startHere(dir)
    // Redis exits with 0 when it shut down on SIGTERM, its append-only file flushed.
    expect(await leftoverExit).toBe(0)
    const read = await fetch(`${url}/docs/legacy`)
    expect(read.status).toBe(200)
    expect(await read.json()).toEqual({ written: 'to the leftover' })
  })

  it('lets exactly one of two services started at once on one folder run; the other exits naming it', async () => {
    const { dir } = dataFolder()
    const services = [spawnService(dir), spawnService(dir)]
    const outcomes = await Promise.allSettled(services.map((service) => service.listening))
    const winner = outcomes.findIndex((outcome) => outcome.status === 'fulfilled')
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    const loser = services[1 - winner]!
    expect(await loser.exited).toBe(1)
    expect(loser.output()).toContain(`Another jsondocs (pid ${services[winner]!.child.pid}) is using ${join(dir, 'redis')}`)
    const health = await fetch(`${(outcomes[winner] as PromiseFulfilledResult<string>).value}/health`)
    expect(health.status).toBe(200)
  })
})
