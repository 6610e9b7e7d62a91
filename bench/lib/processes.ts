import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createClient } from 'redis'
import type { RedisConnection } from '../../src/redis/connection.js'
import type { CommandSender } from './load.js'
import { benchTools } from './bench-tools.js'

const READY_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 15_000

/** A process the runner started and measures. */
export interface Measured {
  pid: number
  url: string
  stop (): Promise<void>
}

export interface ServiceProcess extends Measured {
  /** The unix socket of the Redis the service started for itself. */
  socketPath: string
}

export interface ServiceOptions {
  root: string
  /** `dist`: node dist/server.js (built first); `tsx`: src/server.ts through tsx, no build. */
  mode: 'dist' | 'tsx'
  dataDir: string
  logLevel: string
  cacheMaxEntries: number
  keyPrefix: string
  gcLog: string
  /** Settings to give the service beyond these (`bench:abuse -- --env`). */
  env?: Record<string, string>
}

/** The service's environment variables (src/config.ts), all set or left at their defaults here. */
const SERVICE_SETTINGS = ['HOST', 'PORT', 'LOG_LEVEL', 'REDIS_URL', 'DATA_DIR', 'KEY_PREFIX', 'BODY_LIMIT', 'MAX_DEPTH',
  'REDIS_TIMEOUT_MS', 'RETRY_AFTER_SECONDS', 'CACHE_MAX_ENTRIES', 'MAX_CONNECTIONS', 'HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS',
  'IDLE_TIMEOUT_MS', 'MAX_UPLOADS', 'MAX_WAITING_UPLOADS', 'AUTH_ADMIN_TOKEN', 'METRICS_PORT', 'BASE_PATH', 'AUTH_ANONYMOUS_SCOPES',
  'AUTH_DISABLED', 'AUTH_JWT_SECRET', 'AUTH_JWT_PUBLIC_KEY_FILE', 'AUTH_JWT_JWKS_FILE', 'AUTH_JWT_ISSUER', 'AUTH_JWT_AUDIENCE', 'AUTH_JWT_SCOPES',
  'CORS_ORIGINS', 'RATE_LIMIT', 'WORKERS', 'VALIDATION_WORKERS', 'WRITE_REPLICAS', 'WRITE_REPLICAS_TIMEOUT_MS', 'EVENTS_MAXLEN',
  'EVENTS_RETENTION_MS', 'STREAM_HEARTBEAT_MS', 'MAX_STREAMS', 'STREAM_TICKET_TTL_MS']

/** A free loopback port (the small race before the child binds it is acceptable for a benchmark). */
export async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/**
 * The service as `npm start` runs it: no REDIS_URL, so it starts and supervises its own redis-server
 * with RedisJSON on a unix socket under DATA_DIR. The GC probe is preloaded; the service is unchanged.
 */
export async function startService (options: ServiceOptions): Promise<ServiceProcess> {
  const port = await freePort()
  const entry = options.mode === 'dist' ? join(options.root, 'dist/server.js') : join(options.root, 'src/server.ts')
  const loader = options.mode === 'tsx' ? ['--import', 'tsx'] : []
  // The service at its defaults: none of its settings leak in from the caller's environment.
  const inherited = { ...process.env }
  for (const name of SERVICE_SETTINGS) delete inherited[name]
  const child = spawn(process.execPath, [...startFlags(options.root), ...loader, '--import', probePath(options.root), entry], {
    cwd: options.root,
    env: {
      ...inherited,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: options.dataDir,
      KEY_PREFIX: options.keyPrefix,
      LOG_LEVEL: options.logLevel,
      CACHE_MAX_ENTRIES: String(options.cacheMaxEntries),
      JSONDOCS_BENCH_GC_LOG: options.gcLog,
      ...options.env
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const url = `http://127.0.0.1:${port}`
  const socketPath = join(options.dataDir, 'redis', 'redis.sock')
  await waitHealthy(child, url, 'the service')
  return {
    pid: child.pid!,
    url,
    socketPath,
    async stop () {
      const clean = await stopChild(child)
      // Killed hard, the service cannot stop its redis-server: ask Redis itself to go.
      if (!clean) await shutdownRedis(socketPath)
    }
  }
}

/**
 * The node options `npm start` gives the service (package.json's start script, `exec node [options]
 * dist/server.js`): the bench runs the service as users do, and the no-op server on the same terms.
 */
export function startFlags (root: string): string[] {
  const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
  const start = packageJson.scripts?.['start'] ?? ''
  const match = /^exec node((?: --[\w-]+(?:=\S+)?)*) dist\/server\.js$/.exec(start)
  if (!match) throw new Error(`package.json's start script is not "exec node [--options] dist/server.js": ${start}`)
  return match[1]!.split(' ').filter(Boolean)
}

/** The no-op fastify server, run with the service's node options: the bare HTTP ceiling. */
export function startCeiling (root: string, logLevel: string): Promise<Measured> {
  return startBenchProcess(root, 'noop-server.mjs', 'the no-op server', { LOG_LEVEL: logLevel })
}

/**
 * The floor server (bench/processes/floor-server.mjs) on the service's Redis and key prefix: the least a
 * versioned gateway on the same fastify and node-redis does, run with the service's node options.
 */
export function startFloor (root: string, logLevel: string, redis: RedisConnection, keyPrefix: string): Promise<Measured> {
  if ('clusterNodes' in redis) throw new Error('the floor server runs on a single Redis')
  const where: Record<string, string> = 'url' in redis ? { REDIS_URL: redis.url, REDIS_SOCKET: '' } : { REDIS_SOCKET: redis.socketPath }
  return startBenchProcess(root, 'floor-server.mjs', 'the floor server', { LOG_LEVEL: logLevel, KEY_PREFIX: keyPrefix, ...where })
}

/** One of bench/processes/ on a free loopback port, healthy before it is measured. */
async function startBenchProcess (root: string, script: string, name: string, env: Record<string, string>): Promise<Measured> {
  const port = await freePort()
  const child = spawn(process.execPath, [...startFlags(root), join(root, 'bench/processes', script)], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const url = `http://127.0.0.1:${port}`
  await waitHealthy(child, url, name)
  return { pid: child.pid!, url, stop: async () => { await stopChild(child) } }
}

/**
 * Webdis (a C HTTP gateway to Redis, as scripts/provision-bench-tools.sh unpacks it) on a Redis unix
 * socket, answering on a free loopback port; its config and log go to work.
 */
export async function startWebdis (root: string, work: string, socketPath: string): Promise<Measured> {
  const port = await freePort()
  const config = join(work, 'webdis.json')
  writeFileSync(config, JSON.stringify({
    redis_host: socketPath, redis_port: 0, http_host: '127.0.0.1', http_port: port, threads: 2,
    daemonize: false, database: 0, verbosity: 0, logfile: join(work, 'webdis.log')
  }))
  const tools = benchTools(root)
  const child = spawn(tools.webdis, [config], { env: tools.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const url = `http://127.0.0.1:${port}`
  await waitHealthy(child, url, 'webdis', '/PING')
  return { pid: child.pid!, url, stop: async () => { await stopChild(child) } }
}

/** The PID of the Redis a client is connected to (INFO server), so that its CPU time can be read. */
export async function redisPidOf (redis: CommandSender): Promise<number> {
  const info = String(await redis.sendCommand(['INFO', 'server']))
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1])
  if (!pid) throw new Error('no process_id in INFO server')
  return pid
}

function probePath (root: string): string {
  return join(root, 'bench/processes/gc-probe.mjs')
}

/** Waits until GET url + probe answers 2xx, failing with the child's last output if it exits or never does. */
async function waitHealthy (child: ChildProcess, url: string, name: string, probe = '/health'): Promise<void> {
  let output = ''
  const collect = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited before it was ready (${child.exitCode ?? child.signalCode}):\n${output}`)
    }
    try {
      const response = await fetch(url + probe, { signal: AbortSignal.timeout(1000) })
      if (response.ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopChild(child)
      throw new Error(`${name} was not healthy after ${READY_TIMEOUT_MS} ms:\n${output}`)
    }
    await sleep(100)
  }
}

/** SIGTERM, then SIGKILL after a bound; true when the process exited on SIGTERM. */
async function stopChild (child: ChildProcess): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS) })
  const late = await Promise.race([exited.then(() => false), timedOut])
  clearTimeout(timer)
  if (!late) return true
  child.kill('SIGKILL')
  await exited
  return false
}

async function shutdownRedis (socketPath: string): Promise<void> {
  const client = createClient({ socket: { path: socketPath, reconnectStrategy: false } })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.sendCommand(['SHUTDOWN', 'NOSAVE']).catch(() => {})
  } catch {
    // nothing answers: nothing to stop
  } finally {
    if (client.isOpen) client.destroy()
  }
}
