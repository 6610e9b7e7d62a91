import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { whenDone } from './cleanup.js'
import { provisionLocalRedis } from './provision.js'
import { provisionedBinaries, startLocalRedis, type LocalRedis, type LocalRedisOptions } from '../../src/redis/local-server.js'
import { probeSocket } from '../../src/redis/socket-probe.js'

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

/**
 * A persistent redis-server with its modules on dir/redis.sock started the way jsondocs did before its Redis
 * had a lifeline and its folder a claim: a plain child process. It is killed when the test ends, if still there.
 */
export async function startUntiedRedis (dir: string): Promise<ChildProcess> {
  provisionLocalRedis()
  mkdirSync(dir, { recursive: true })
  const socketPath = join(dir, 'redis.sock')
  const server = spawn(provisionedBinaries.server, [
    '--port', '0', '--unixsocket', socketPath, '--unixsocketperm', '700', '--dir', dir,
    '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec',
    '--daemonize', 'no', '--logfile', '', '--loglevel', 'warning',
    ...provisionedBinaries.modules.flatMap((module) => ['--loadmodule', module])
  ], { stdio: 'ignore' })
  whenDone(() => { server.kill('SIGKILL') })
  await eventually(async () => (await probeSocket(socketPath)) === 'answers')
  return server
}
