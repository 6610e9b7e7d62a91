import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { benchTools } from './bench-tools.js'

/** What one wrk run reports, latencies in milliseconds. */
export interface WrkResult {
  requests: number
  rate: number
  latency: { mean: number, p50: number, p75: number, p90: number, p99: number, max: number }
  /** Responses outside 2xx and 3xx. */
  non2xx: number
  /** Connect, read, write and timeout errors, summed. */
  socketErrors: number
}

export interface WrkRun {
  connections: number
  threads: number
  seconds: number
}

/** Runs wrk against url, bounded by its duration, and parses its report; script is a wrk Lua file (a method and body, say). */
export async function runWrk (root: string, url: string, run: WrkRun, script?: string): Promise<WrkResult> {
  const tools = benchTools(root)
  const args = [`-t${run.threads}`, `-c${run.connections}`, `-d${run.seconds}s`, '--latency', ...(script === undefined ? [] : ['-s', script]), url]
  const { stdout } = await promisify(execFile)(tools.wrk, args, { env: tools.env, timeout: (run.seconds + 30) * 1000 })
  return parseWrkReport(stdout)
}

/** Milliseconds per unit, or for microseconds the divisor (a division keeps 172us at exactly 0.172). */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 }

/** A wrk duration such as `451.23us`, `1.14ms` or `2.00s`, in milliseconds. */
function durationMs (text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text)
  if (!match) throw new Error(`wrk reported a duration it does not document: "${text}"`)
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : value * UNIT_MS[match[2]!]!
}

/** Parses the report `wrk --latency` prints. */
export function parseWrkReport (report: string): WrkResult {
  const find = (pattern: RegExp, what: string): string => {
    const match = pattern.exec(report)
    if (!match) throw new Error(`no ${what} in wrk's report:\n${report}`)
    return match[1]!
  }
  const percentile = (p: number) => durationMs(find(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm'), `${p}th percentile`))
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report)
  return {
    requests: Number(find(/^\s+(\d+) requests in/m, 'request count')),
    rate: Number(find(/^Requests\/sec:\s+([\d.]+)/m, 'rate')),
    latency: {
      mean: durationMs(find(/^\s+Latency\s+(\S+)/m, 'mean latency')),
      p50: percentile(50),
      p75: percentile(75),
      p90: percentile(90),
      p99: percentile(99),
      max: durationMs(find(/^\s+Latency\s+\S+\s+\S+\s+(\S+)/m, 'longest latency'))
    },
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(report)?.[1] ?? 0),
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  }
}
