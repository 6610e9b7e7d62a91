import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

let ticksPerSecond: number | undefined

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux nearly everywhere). */
function clockTicks (): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** CPU time (user + system) one process has used so far, in microseconds, from /proc/<pid>/stat. */
function ownCpuMicros (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return ((utime + stime) / clockTicks()) * 1e6
}

/** The children of a process that are not a redis-server (measured on its own): a service's WORKERS. */
function serviceChildren (pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
      .filter((child) => !readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('redis-server'))
  } catch {
    return []
  }
}

/**
 * CPU time (user + system) a process and its children but redis-server have used so far, in
 * microseconds: the service's own, or with WORKERS, its primary's and every worker's.
 */
export function cpuMicros (pid: number): number {
  let total = ownCpuMicros(pid)
  for (const child of serviceChildren(pid)) {
    try {
      total += ownCpuMicros(child)
    } catch {
      // gone meanwhile
    }
  }
  return total
}

/** Resident set size of a process in megabytes, from /proc/<pid>/status. */
export function rssMegabytes (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status)
  return match ? Number(match[1]) / 1024 : 0
}

/** One garbage collection as the probe logged it: wall-clock start (ms since epoch) and pause (ms). */
export interface GcEvent {
  at: number
  pauseMs: number
  kind: number
}

/** Parses the probe's log: one `<epoch ms> <pause ms> <kind>` line per collection. */
export function parseGcLog (text: string): GcEvent[] {
  const events: GcEvent[] = []
  for (const line of text.split('\n')) {
    const [at, pause, kind] = line.trim().split(' ').map(Number)
    if (at === undefined || pause === undefined || Number.isNaN(at) || Number.isNaN(pause)) continue
    events.push({ at, pauseMs: pause, kind: kind ?? 0 })
  }
  return events
}

export function readGcLog (file: string): GcEvent[] {
  return existsSync(file) ? parseGcLog(readFileSync(file, 'utf8')) : []
}

export interface GcSummary {
  count: number
  totalMs: number
  maxMs: number
  /** The kind of the longest collection: minor (scavenge), major (mark-compact), incremental, weakcb. */
  longestKind?: string
}

/** perf_hooks' NODE_PERFORMANCE_GC_* kinds. */
const GC_KINDS: Record<number, string> = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weakcb' }

/** Collections that started within [from, to] (epoch ms). */
export function gcWithin (events: readonly GcEvent[], from: number, to: number): GcSummary {
  let count = 0
  let totalMs = 0
  let longest: GcEvent | undefined
  for (const event of events) {
    if (event.at < from || event.at > to) continue
    count++
    totalMs += event.pauseMs
    if (!longest || event.pauseMs > longest.pauseMs) longest = event
  }
  const round = (x: number) => Math.round(x * 1000) / 1000
  return {
    count,
    totalMs: round(totalMs),
    maxMs: round(longest?.pauseMs ?? 0),
    ...(longest ? { longestKind: GC_KINDS[longest.kind] ?? String(longest.kind) } : {})
  }
}
