import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'
import { describe, expect, it } from 'vitest'
import { loadEnvironment } from '../src/config.js'
import { redisServersOn } from '../src/redis/leftover.js'
import { startServer } from '../src/server.js'
import { whenDone } from './helpers/cleanup.js'
import { eventually, startUntiedRedis } from './helpers/local-redis.js'
import { provisionLocalRedis } from './helpers/provision.js'
import { processGone, redisPidOn, spawnService, whenGone } from './helpers/service-process.js'

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

const DOCUMENTS = 20

/** Writes documents doc0..doc19 and expects each to be acknowledged. */
async function writeDocuments (url: string): Promise<void> {
  for (let i = 0; i < DOCUMENTS; i++) {
    const response = await fetch(`${url}/docs/doc${i}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i, tags: ['kept'] })
    })
    expect(response.status).toBe(201)
  }
}

async function expectDocuments (url: string): Promise<void> {
  for (let i = 0; i < DOCUMENTS; i++) {
    const response = await fetch(`${url}/docs/doc${i}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ i, tags: ['kept'] })
  }
}

/** PIDs of the watchdog shells whose parent is pid. */
function watchdogsOf (pid: number): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).filter((entry) => {
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      const parent = /^\d+ \(.*\) \S (\d+)/s.exec(readFileSync(`/proc/${entry}/stat`, 'utf8'))?.[1]
      return cmdline.includes('jsondocs-redis-watchdog') && Number(parent) === pid
    } catch {
      return false
    }
  }).map(Number)
}

describe('the embedded Redis when the service is killed', () => {
  provisionLocalRedis()

  it.each([
    ['setpriv --pdeathsig', false],
    ['a watchdog', true]
  ])('stops gracefully soon after a kill -9 of the service (%s), and the next start serves every write acknowledged before', async (_, withoutSetpriv) => {
    const { dir, socket } = dataFolder()
    // With no setpriv on its PATH the service ties its Redis with a watchdog shell.
    const emptyPath = mkdirSync(join(dir, 'empty-path'), { recursive: true })!
    const first = spawnService(dir, withoutSetpriv ? { PATH: emptyPath } : {})
    await writeDocuments(await first.listening)
    const redisPid = await redisPidOn(socket)
    expect(watchdogsOf(first.child.pid!)).toHaveLength(withoutSetpriv ? 1 : 0)
    expect(first.output().includes('a watchdog process ties redis-server')).toBe(withoutSetpriv)

    first.child.kill('SIGKILL')
    await first.exited
    await whenGone(redisPid)
    // Redis removes its socket only when it shuts down, after flushing its append-only file.
    expect(existsSync(socket)).toBe(false)

    await expectDocuments(await startHere(dir))
  })

  it('comes back at once after a kill -9 while its Redis is paused, with every write, and that Redis gone', async () => {
    const { dir, socket } = dataFolder()
    const first = spawnService(dir)
    await writeDocuments(await first.listening)
    const redisPid = await redisPidOn(socket)
    process.kill(redisPid, 'SIGSTOP')

    first.child.kill('SIGKILL')
    const url = await startHere(dir)
    expect(processGone(redisPid)).toBe(true)
    await expectDocuments(url)
  })

  it('comes back after a kill -9 of its Redis and then of itself while it restarts that Redis, with one Redis only', async () => {
    const { dir, socket } = dataFolder()
    const first = spawnService(dir)
    await writeDocuments(await first.listening)
    const killedRedis = await redisPidOn(socket)
    process.kill(killedRedis, 'SIGKILL')
    let restarting: number | undefined
    await eventually(async () => {
      restarting = redisServersOn(socket).find((pid) => pid !== killedRedis)
      return restarting !== undefined
    })
    first.child.kill('SIGKILL')

    const url = await startHere(dir)
    expect(processGone(restarting!)).toBe(true)
    expect(redisServersOn(socket)).toEqual([await redisPidOn(socket)])
    await expectDocuments(url)
  })

  it('stops a Redis left over by a jsondocs from before lifelines gracefully, and serves its data', async () => {
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
