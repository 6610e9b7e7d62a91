import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from 'redis'
import { inject } from 'vitest'
import { whenDone } from './cleanup.js'
import { eventually } from './local-redis.js'

const root = join(import.meta.dirname, '../..')

/** The service as its own process, with no REDIS_URL: it runs its own Redis. */
export interface ServiceProcess {
  child: ChildProcess
  /** Resolves with the base URL once it listens; rejects when it exits first. */
  listening: Promise<string>
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<number | string | null>
  /** What it wrote to stdout and stderr so far. */
  output (): string
}

/**
 * How the service is started: its sources compiled by the suite's setup (test/setup/service.ts), or
 * src/server.ts through tsx, as `npm run dev` runs it.
 */
export function serviceCommand ({ fromSources = false } = {}): string[] {
  return fromSources ? ['--import', 'tsx', 'src/server.ts'] : [inject('serviceEntry')]
}

/** Starts the service on dataDir, on a port of its choosing; it is killed when the test ends. */
export function spawnService (dataDir: string, env: NodeJS.ProcessEnv = {}, { fromSources = false } = {}): ServiceProcess {
  const inherited: NodeJS.ProcessEnv = { ...process.env }
  delete inherited['REDIS_URL']
  const child = spawn(process.execPath, serviceCommand({ fromSources }), {
    cwd: root,
    env: { ...inherited, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  whenDone(() => { child.kill('SIGKILL') })
  let output = ''
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  const listening = new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
      if (url) resolve(url)
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    void exited.then((status) => reject(new Error(`the service exited (${status}) before listening:\n${output}`)))
  })
  listening.catch(() => {})
  return { child, listening, exited, output: () => output }
}

/** The PID of the redis-server a client is connected to (INFO server). */
export async function redisPid (client: { info (section: string): Promise<string> }): Promise<number> {
  return Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1])
}

/** The PID of the redis-server answering on socketPath. */
export async function redisPidOn (socketPath: string): Promise<number> {
  const client = await createClient({ socket: { path: socketPath, reconnectStrategy: false } }).connect()
  try {
    return await redisPid(client)
  } finally {
    client.destroy()
  }
}

/** The fields of /proc/<pid>/stat after the command's name (state first), or undefined without that file. */
function statOf (pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/** Whether a process has ended: gone from /proc, or a zombie its parent has not yet waited for. */
export function processGone (pid: number): boolean {
  const stat = statOf(pid)
  return stat === undefined || stat[0] === 'Z'
}

/** Milliseconds of CPU time a process has used, user and system (clock ticks of 10 ms), or undefined without /proc. */
export function cpuMsOf (pid: number): number | undefined {
  const stat = statOf(pid)
  return stat === undefined ? undefined : (Number(stat[11]) + Number(stat[12])) * 10
}

/** Polls until the process has ended, for at most timeoutMs. */
export function whenGone (pid: number, timeoutMs = 5000): Promise<void> {
  return eventually(async () => processGone(pid), timeoutMs)
}

/** What sendOnce answers. */
export interface Answer { status: number, headers: http.IncomingHttpHeaders, body: string }

/**
 * One request on a connection of its own (no agent, no keep-alive), so that a primary of WORKERS hands each
 * to the next worker; refused after timeoutMs without an answer.
 */
export function sendOnce (url: string, method: string, headers: Record<string, string> = {}, body?: string, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: text }))
    })
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`${method} ${url} had no answer in ${timeoutMs} ms`)))
    request.on('error', reject)
    request.end(body)
  })
}
