import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join, resolve } from 'node:path'
import { claimFolder, type FolderLock } from './folder-lock.js'
import { clearLeftovers } from './leftover.js'
import { availableLifeline, spawnTied } from './lifeline.js'
import { probeSocket } from './socket-probe.js'

/** Where scripts/provision-redis.sh puts redis-server and its modules. */
const provisioned = fileURLToPath(new URL('../../.redis/', import.meta.url))

export interface LocalRedisBinaries {
  server: string
  /** RedisJSON, then RediSearch: the modules of the redis:8 image the service uses. */
  modules: string[]
}

export const provisionedBinaries: LocalRedisBinaries = {
  server: join(provisioned, 'redis-8.2.3/redis-server'),
  modules: [join(provisioned, 'rejson.so'), join(provisioned, 'redisearch.so')]
}

export interface LocalRedisOptions {
  /** Folder for the unix socket and, when persistent, the append-only file. */
  dir: string
  /** Keep data across restarts with an AOF (fsync every second, and on shutdown). */
  persistent: boolean
  /** Load the modules (default true); false only to prove the service refuses a Redis without RedisJSON. */
  withJsonModule?: boolean
  /** Start Redis again when it dies on its own. */
  supervise?: boolean
  binaries?: LocalRedisBinaries
  log?: (message: string) => void
}

export interface LocalRedis {
  socketPath: string
  /** Stops Redis (it flushes its AOF first) and releases the folder; resolves when the process has exited. */
  stop (): Promise<void>
  /** Claims the folder and starts Redis again after stop(). */
  start (): Promise<void>
}

const READY_TIMEOUT_MS = 10_000
const STOP_TIMEOUT_MS = 10_000
const RESTART_DELAY_MS = 500

/**
 * Starts a redis-server of our own on a unix socket under `dir`, and resolves once it accepts commands.
 * The folder is claimed first (another live jsondocs on it is refused) and a Redis left over there is
 * stopped; Redis is tied to this process, so it stops when this process dies, however it dies.
 */
export async function startLocalRedis (options: LocalRedisOptions): Promise<LocalRedis> {
  const binaries = options.binaries ?? provisionedBinaries
  const withJsonModule = options.withJsonModule ?? true
  const log = options.log ?? (() => {})
  const modules = withJsonModule ? binaries.modules : []
  for (const file of [binaries.server, ...modules]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run \`npm run provision\` to fetch redis-server and its modules`)
    }
  }
  const dir = resolve(options.dir)
  mkdirSync(dir, { recursive: true })
  const socketPath = join(dir, 'redis.sock')
  if (Buffer.byteLength(socketPath) > 100) throw new Error(`Socket path too long for a unix socket: ${socketPath}`)
  const lifeline = availableLifeline()
  if (lifeline === 'watchdog') log('setpriv --pdeathsig is not available here: a watchdog process ties redis-server to this one')

  const args = [
    '--port', '0', '--unixsocket', socketPath, '--unixsocketperm', '700', '--dir', dir,
    '--save', '', '--appendonly', options.persistent ? 'yes' : 'no', '--appendfsync', 'everysec',
    '--daemonize', 'no', '--logfile', '', '--loglevel', 'warning',
    ...modules.flatMap((module) => ['--loadmodule', module])
  ]

  let child: ChildProcess | undefined
  let lock: FolderLock | undefined
  let stopping = false

  const claim = async (): Promise<void> => {
    lock = await claimFolder(dir)
    try {
      await clearLeftovers(socketPath, log)
    } catch (error) {
      await release()
      throw error
    }
  }
  const release = async (): Promise<void> => {
    await lock?.release()
    lock = undefined
  }

  const launch = async (): Promise<void> => {
    const { child: server, untie } = spawnTied(lifeline, binaries.server, args, {
      stdio: ['ignore', 'pipe', 'pipe']
    })
    child = server
    let spawnError: Error | undefined
    server.once('error', (error) => { spawnError = error })
    let output = ''
    const collect = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) }
    server.stdout?.on('data', collect)
    server.stderr?.on('data', collect)
    let ready = false
    server.once('exit', (code, signal) => {
      untie()
      if (stopping || child !== server || !ready) return
      log(`local redis-server exited (${signal ?? code})${options.supervise ? "; restarting" : ""}`)
      child = undefined
      if (options.supervise) setTimeout(() => { if (!stopping) launch().catch((e: Error) => log(e.message)) }, RESTART_DELAY_MS).unref()
    })
    const answers = async () => (await probeSocket(socketPath)) === 'answers'
    const failed = () => spawnError !== undefined || server.exitCode !== null || server.signalCode !== null
    try {
      await waitUntil(answers, READY_TIMEOUT_MS, failed)
    } catch (error) {
      if (child === server) child = undefined
      await terminate(server, 'SIGKILL')
      throw new Error(`redis-server did not start: ${spawnError?.message ?? (error as Error).message}\n${output}`)
    }
    ready = true
  }

  const claimAndLaunch = async (): Promise<void> => {
    await claim()
    try {
      await launch()
    } catch (error) {
      await release()
      throw error
    }
  }

  await claimAndLaunch()
  return {
    socketPath,
    async start () {
      stopping = false
      if (!child) await claimAndLaunch()
    },
    async stop () {
      stopping = true
      const current = child
      child = undefined
      if (current) await terminate(current, 'SIGTERM')
      await release()
    }
  }
}

/** Sends signal, then SIGKILL after STOP_TIMEOUT_MS; resolves once the process has exited. */
async function terminate (server: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (server.pid === undefined || server.exitCode !== null || server.signalCode !== null) return
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()))
  server.kill(signal)
  const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS)
  await exited
  clearTimeout(timer)
}

async function waitUntil (ready: () => Promise<boolean>, timeoutMs: number, failed: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await ready())) {
    if (failed()) throw new Error('the process exited')
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
