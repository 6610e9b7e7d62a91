import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { join, resolve } from 'node:path'

/** Where scripts/provision-redis.sh puts redis-server and RedisJSON. */
const provisioned = fileURLToPath(new URL('../../.redis/', import.meta.url))

export interface LocalRedisBinaries {
  server: string
  /** Folder of the shared libraries redis-server was unpacked with. */
  libraries: string
  jsonModule: string
}

export const provisionedBinaries: LocalRedisBinaries = {
  server: join(provisioned, 'root/usr/bin/redis-server'),
  libraries: join(provisioned, 'root/usr/lib/x86_64-linux-gnu'),
  jsonModule: join(provisioned, 'rejson.so')
}

export interface LocalRedisOptions {
  /** Folder for the unix socket and, when persistent, the append-only file. */
  dir: string
  /** Keep data across restarts with an AOF (fsync every second, and on shutdown). */
  persistent: boolean
  /** Load RedisJSON (default true); false only to prove the service refuses such a Redis. */
  withJsonModule?: boolean
  /** Start Redis again when it dies on its own. */
  supervise?: boolean
  binaries?: LocalRedisBinaries
  log?: (message: string) => void
}

export interface LocalRedis {
  socketPath: string
  /** Stops Redis (it flushes its AOF first); resolves when the process has exited. */
  stop (): Promise<void>
  /** Starts it again after stop(). */
  start (): Promise<void>
}

const READY_TIMEOUT_MS = 10_000
const STOP_TIMEOUT_MS = 10_000
const RESTART_DELAY_MS = 500

/** Starts a redis-server of our own on a unix socket under `dir`, and resolves once it accepts commands. */
export async function startLocalRedis (options: LocalRedisOptions): Promise<LocalRedis> {
  const binaries = options.binaries ?? provisionedBinaries
  const withJsonModule = options.withJsonModule ?? true
  const log = options.log ?? (() => {})
  for (const file of [binaries.server, ...(withJsonModule ? [binaries.jsonModule] : [])]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run \`npm run provision\` to fetch redis-server and RedisJSON`)
    }
  }
  const dir = resolve(options.dir)
  mkdirSync(dir, { recursive: true })
  const socketPath = join(dir, 'redis.sock')
  if (Buffer.byteLength(socketPath) > 100) throw new Error(`Socket path too long for a unix socket: ${socketPath}`)
  if (await answers(socketPath)) {
    throw new Error(`A Redis already listens on ${socketPath}: is another jsondocs using ${dir}?`)
  }

  const args = [
    '--port', '0', '--unixsocket', socketPath, '--unixsocketperm', '700', '--dir', dir,
    '--save', '', '--appendonly', options.persistent ? 'yes' : 'no', '--appendfsync', 'everysec',
    '--daemonize', 'no', '--logfile', '', '--loglevel', 'warning',
    ...(withJsonModule ? ['--loadmodule', binaries.jsonModule] : [])
  ]

  let child: ChildProcess | undefined
  let stopping = false

  const launch = async (): Promise<void> => {
    const server = spawn(binaries.server, args, {
      env: { ...process.env, LD_LIBRARY_PATH: binaries.libraries },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    child = server
    let output = ''
    const collect = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) }
    server.stdout?.on('data', collect)
    server.stderr?.on('data', collect)
    let ready = false
    server.once('exit', (code, signal) => {
      if (stopping || child !== server || !ready) return
      log(`local redis-server exited (${signal ?? code})${options.supervise ? "; restarting" : ""}`)
      child = undefined
      if (options.supervise) setTimeout(() => { if (!stopping) launch().catch((e: Error) => log(e.message)) }, RESTART_DELAY_MS).unref()
    })
    await waitUntil(() => answers(socketPath), READY_TIMEOUT_MS, () => server.exitCode !== null || server.signalCode !== null)
      .catch((error: Error) => {
        server.kill('SIGKILL')
        throw new Error(`redis-server did not start: ${error.message}\n${output}`)
      })
    ready = true
  }

  const killOnExit = () => child?.kill('SIGKILL')
  process.once('exit', killOnExit)

  await launch()
  return {
    socketPath,
    async start () {
      stopping = false
      if (!child) await launch()
    },
    async stop () {
      stopping = true
      const current = child
      child = undefined
      if (!current || current.exitCode !== null || current.signalCode !== null) return
      const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()))
      current.kill('SIGTERM')
      const timer = setTimeout(() => current.kill('SIGKILL'), STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    }
  }
}

/** Whether something answers PING on the socket. */
function answers (socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (!existsSync(socketPath)) return resolve(false)
    const socket = connect(socketPath)
    const done = (ok: boolean) => { socket.destroy(); resolve(ok) }
    socket.setTimeout(1000, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')))
  })
}

async function waitUntil (ready: () => Promise<boolean>, timeoutMs: number, failed: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await ready())) {
    if (failed()) throw new Error('the process exited')
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
