import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process'

/**
 * How a redis-server is tied to the life of the process that starts it, so that it never outlives it:
 * - `parent-death-signal`: `setpriv --pdeathsig TERM` (util-linux) asks the kernel to send it SIGTERM
 *   when its parent dies, by any means, and then execs it: no extra process. (The kernel watches the
 *   thread that spawned it: Node spawns from the main thread, which lasts as long as the process.)
 * - `watchdog`: where setpriv or that option is missing, a shell holds a pipe from this process and sends
 *   the SIGTERM when the pipe closes, which the kernel does when this process dies: one small process.
 * Either way Redis shuts down as on any SIGTERM: it writes and fsyncs its append-only file, then exits.
 */
export type Lifeline = 'parent-death-signal' | 'watchdog'

/** Reads one line from the pipe, which only ends when the service dies or unties it; then stops Redis ($1). */
const WATCHDOG_SCRIPT = 'read -r _; kill -TERM "$1" 2>/dev/null'

/** The lifeline this machine offers: setpriv's when it runs here with --pdeathsig, else the watchdog. */
export function availableLifeline (): Lifeline {
  const probe = spawnSync('setpriv', ['--pdeathsig', 'TERM', '--', 'true'], { stdio: 'ignore', timeout: 5000 })
  return probe.status === 0 ? 'parent-death-signal' : 'watchdog'
}

export interface TiedProcess {
  /** The process itself: its PID, exit and signals are the command's own. */
  child: ChildProcess
  /** Ends the watchdog, if any: call it once the child has exited. */
  untie (): void
}

/**
 * Spawns command in a process group of its own (a Ctrl-C in a terminal reaches the service, which then
 * stops Redis after the app) and tied to this process by lifeline.
 */
export function spawnTied (lifeline: Lifeline, command: string, args: string[], options: SpawnOptions): TiedProcess {
  if (lifeline === 'parent-death-signal') {
    const child = spawn('setpriv', ['--pdeathsig', 'TERM', '--', command, ...args], { ...options, detached: true })
    return { child, untie () {} }
  }
  const child = spawn(command, args, { ...options, detached: true })
  if (child.pid === undefined) return { child, untie () {} }
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'jsondocs-redis-watchdog', String(child.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true
  })
  // Without a watchdog the next start still finds and stops this Redis (see leftover.ts).
  watchdog.on('error', () => {})
  watchdog.stdin?.on('error', () => {})
  return { child, untie () { watchdog.kill('SIGKILL') } }
}
