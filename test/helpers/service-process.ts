import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { whenDone } from './cleanup.js'

const root = join(import.meta.dirname, '../..')

/** The service as its own process (`src/server.ts` through tsx), with no REDIS_URL: it runs its own Redis. */
export interface ServiceProcess {
  child: ChildProcess
  /** Resolves with the base URL once it listens; rejects when it exits first. */
  listening: Promise<string>
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<number | string | null>
  /** What it wrote to stdout and stderr so far. */
  output (): string
}

/** Starts the service on dataDir, on a port of its choosing; it is killed when the test ends. */
export function spawnService (dataDir: string, env: NodeJS.ProcessEnv = {}): ServiceProcess {
  const inherited: NodeJS.ProcessEnv = { ...process.env }
  delete inherited['REDIS_URL']
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
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
