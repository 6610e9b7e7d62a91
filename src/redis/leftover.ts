import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { otherClients, probeSocket } from './socket-probe.js'

const IN_USE_GRACE_MS = 2000
const STOP_TIMEOUT_MS = 10_000
const KILL_TIMEOUT_MS = 5000
const POLL_MS = 25

/**
 * Makes way for a new redis-server on socketPath, in a folder this process has claimed (folder-lock.ts),
 * so no live jsondocs of this version uses it. A redis-server still serving it is a leftover: of a crash
 * its lifeline did not cover (a kill of the service and of its watchdog, Redis paused), of a service
 * killed a moment ago whose Redis is still shutting down, or of a jsondocs from before lifelines. It is
 * stopped with SIGTERM, so that it flushes its append-only file, and awaited, so that two Redis never
 * share the files. Refused, with a sentence: such a Redis with clients connected (an older jsondocs still
 * running, or another program), and a Redis answering there that this user cannot see or stop.
 */
export async function clearLeftovers (socketPath: string, log: (message: string) => void): Promise<void> {
  const pids = redisServersOn(socketPath)
  if (pids.length === 0) {
    const state = await probeSocket(socketPath)
    if (state === 'answers') {
      throw new Error(`A Redis answers on ${socketPath} but runs as another user or in another container: is another jsondocs using ${dirname(socketPath)}?`)
    }
    if (state === 'silent') {
      throw new Error(`Something accepts connections on ${socketPath} but does not answer as Redis: refusing to start a second Redis on ${dirname(socketPath)}`)
    }
    return
  }
  await refuseWhileInUse(socketPath, pids)
  for (const pid of pids) {
    log(`stopping redis-server ${pid}, left over from an earlier start on ${dirname(socketPath)}, so that it flushes its append-only file`)
    await stopLeftover(pid)
  }
}

/** The dead service's connections close with it; clients that stay mean someone still uses this Redis. */
async function refuseWhileInUse (socketPath: string, pids: number[]): Promise<void> {
  const deadline = Date.now() + IN_USE_GRACE_MS
  for (;;) {
    const clients = await otherClients(socketPath)
    if (!clients) return
    if (Date.now() > deadline) {
      throw new Error(`redis-server ${pids.join(', ')} on ${socketPath} has ${clients} client(s) connected though no jsondocs holds ` +
        `${dirname(socketPath)}: an older jsondocs or another program is using it. Stop that, or shut this Redis down, then start again`)
    }
    await sleep(POLL_MS)
  }
}

/** SIGTERM (after SIGCONT, should it be paused), then SIGKILL if it has not exited in time. */
async function stopLeftover (pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGCONT')
    process.kill(pid, 'SIGTERM')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return
    throw new Error(`cannot stop redis-server ${pid}, left over on the same folder: ${(error as Error).message}`)
  }
  if (await exited(pid, STOP_TIMEOUT_MS)) return
  // What Redis acknowledged is already written to the append-only file, so a kill loses none of it.
  try { process.kill(pid, 'SIGKILL') } catch { return }
  if (!(await exited(pid, KILL_TIMEOUT_MS))) throw new Error(`redis-server ${pid}, left over on the same folder, does not exit`)
}

async function exited (pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!isGone(pid)) {
    if (Date.now() > deadline) return false
    await sleep(POLL_MS)
  }
  return true
}

/** Gone from /proc, or a zombie: its files and sockets are closed, only its parent's wait is missing. */
function isGone (pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return true
  }
}

/**
 * PIDs of the redis-server processes serving socketPath, from /proc (none where there is no /proc).
 * Redis rewrites its command line into a title (`redis-server unixsocket:/path`); one that has only just
 * started still shows its arguments (`--unixsocket /path`).
 */
export function redisServersOn (socketPath: string): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const found: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8') !== 'redis-server\n') continue
      const served = servedSocket(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'))
      if (served !== undefined && sameSocket(served, socketPath) && !isGone(Number(entry))) found.push(Number(entry))
    } catch {
      // The process ended while being read.
    }
  }
  return found
}

function servedSocket (argv: string[]): string | undefined {
  const flag = argv.indexOf('--unixsocket')
  if (flag >= 0) return argv[flag + 1]
  return / unixsocket:(.+)$/.exec(argv[0] ?? '')?.[1]?.trim()
}

/** The same socket name in the same folder, however each path reaches it. */
function sameSocket (a: string, b: string): boolean {
  if (a === b) return true
  if (basename(a) !== basename(b)) return false
  try {
    const [first, second] = [statSync(dirname(a), { bigint: true }), statSync(dirname(b), { bigint: true })]
    return first.dev === second.dev && first.ino === second.ino
  } catch {
    return false
  }
}

function sleep (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
