import { afterAll, expect } from 'vitest'
import type { RedisClient } from '../../src/redis/plugin.js'
import { cpuMsOf, redisPid } from '../helpers/service-process.js'

/**
 * How long one command of a case held Redis, from Redis' slow log: the time Redis spent executing it
 * (a script whole), which is the time every other client waited. Measured inside Redis, it leaves out
 * the network and the service's own event loop, so it does not move with the load on the machine as a
 * PING's round trip would; it still counts the time the kernel leaves Redis off the CPU mid-command.
 *
 * The bound, 250 ms: the outside check allows no stall over 100 ms from one request, and what this
 * suite looks for, a request whose cost grows with its input, mostly lands far past either figure (the
 * stalls found took 0.3 s to minutes). But this 2-core machine is shared, and a command is sometimes
 * descheduled mid-way: the same request measured 41 ms in one run and 132 ms in the next, 29 ms and
 * 72 ms, while the generated cases on small documents stay under 60 ms. A bound of 100 ms would fail on
 * the machine's load rather than on the service; 250 ms does not. The requests found between 100 and
 * 250 ms are cases of their own in worst-cases.test.ts, with their figures, and the slowest commands of
 * each file are printed after its tests, so anything over 100 ms is seen. ABUSE_BUSY_MS sets another bound.
 *
 * A command over the bound fails the case only when Redis also spent that much CPU time during the case
 * (from /proc, where there is one): a command held 300 ms by a loaded machine, with far less CPU behind
 * it, is the machine's load, not the request's cost; a request whose cost grows with its input is both.
 */
export const BUSY_BOUND_MS = Number(process.env.ABUSE_BUSY_MS ?? 250)

/** Commands faster than this are not logged: far below the bound, and the log stays short. */
const LOGGED_FROM_MICROS = 2000

interface Slow { label: string, ms: number, command: string }

export interface Busiest {
  ms: number
  expectWithinBound (): void
}

export interface BusyLog {
  reset (): Promise<void>
  read (label: string): Promise<Busiest>
}

/** Turns the slow log on for the rig's Redis; prints the slowest commands after the file's tests. */
export async function busyBound (redis: RedisClient, harnessClient: string, statuses: Map<number, number>): Promise<BusyLog> {
  await redis.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', String(LOGGED_FROM_MICROS), 'slowlog-max-len', '256'])
  const pid = await redisPid(redis)
  const slow: Slow[] = []
  let cases = 0
  let cpuAtReset: number | undefined
  afterAll(() => {
    const worst = slow.sort((a, b) => b.ms - a.ms).slice(0, 3)
    const answers = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ')
    console.log(`abuse: ${cases} cases (${answers}), ${slow.length} with a command over ${LOGGED_FROM_MICROS / 1000} ms` +
      (worst.length ? `; slowest: ${worst.map((s) => `${s.ms.toFixed(1)} ms (${s.command}) in ${s.label.slice(0, 160)}`).join('; ')}` : ''))
  })
  return {
    async reset () {
      await redis.sendCommand(['SLOWLOG', 'RESET'])
      cpuAtReset = cpuMsOf(pid)
    },
    async read (label) {
      cases++
      const entries = await redis.sendCommand<Array<[number, number, number, string[], string, string]>>(['SLOWLOG', 'GET', '256'])
      const cpuNow = cpuMsOf(pid)
      const cpuMs = cpuNow === undefined || cpuAtReset === undefined ? Infinity : cpuNow - cpuAtReset
      let ms = 0
      for (const [, , micros, args, , client] of entries) {
        if (client === harnessClient) continue
        const entry = { label, ms: micros / 1000, command: commandName(args) }
        slow.push(entry)
        ms = Math.max(ms, entry.ms)
      }
      return {
        ms,
        expectWithinBound () {
          expect(Math.min(ms, cpuMs), `Redis was held ${ms} ms by one command of ${label}, and spent ${cpuMs} ms of CPU time on the case`)
            .toBeLessThanOrEqual(BUSY_BOUND_MS)
        }
      }
    }
  }
}

/** A slow-log entry's command, short: a script by its hash, a command with its first argument. */
function commandName (args: string[]): string {
  const [name = '', first = ''] = args
  return /^EVAL$/i.test(name) ? 'EVAL <script>' : `${name} ${first.slice(0, 40)}`
}
