import type { Measurement } from './load.js'
import { cpuMicros } from './proc.js'

/** Calls and microseconds of each command, from `INFO commandstats`. */
export type CommandStats = Map<string, { calls: number, usec: number }>

export function commandStats (info: string): CommandStats {
  const stats: CommandStats = new Map()
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    stats.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) })
  }
  return stats
}

/** The CPU time (user and system) Redis has used, in µs, from `INFO cpu`. */
export function redisCpuMicros (info: string): number {
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)![1])
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6
}

/** What a phase of load cost: Redis' CPU and the service's (µs), and Redis' commands, the phase's own only. */
export interface PhaseCost<M> {
  measured: M
  redisCpu: number
  serviceCpu: number
  stats: CommandStats
}

/** Runs a phase with Redis' command statistics reset before it, and reads what it cost Redis and the service. */
export async function costOf<M> (client: { sendCommand (args: string[]): Promise<unknown> }, servicePid: number, run: () => Promise<M>): Promise<PhaseCost<M>> {
  await client.sendCommand(['CONFIG', 'RESETSTAT'])
  const cpuBefore = redisCpuMicros(String(await client.sendCommand(['INFO', 'cpu'])))
  const serviceBefore = cpuMicros(servicePid)
  const measured = await run()
  const serviceCpu = cpuMicros(servicePid) - serviceBefore
  const redisCpu = redisCpuMicros(String(await client.sendCommand(['INFO', 'cpu']))) - cpuBefore
  const stats = commandStats(String(await client.sendCommand(['INFO', 'commandstats'])))
  stats.delete('config|resetstat')
  stats.delete('info')
  return { measured, redisCpu, serviceCpu, stats }
}

/** A line per command, costliest first: calls per request, µs per call and per request. */
export function commandLines (stats: CommandStats, requests: number): string {
  return [...stats].sort((a, b) => b[1].usec - a[1].usec).map(([name, s]) =>
    `    ${name.padEnd(16)} ${(s.calls / requests).toFixed(2).padStart(6)} per request  ${(s.usec / s.calls).toFixed(2).padStart(8)} µs per call  ${(s.usec / requests).toFixed(2).padStart(8)} µs per request\n`).join('')
}

/** A phase's heading: its name, requests, time, rate and answers other than 2xx. */
export function phaseHeading (name: string, measured: Measurement): string {
  return `\n${name}: ${measured.requests} in ${measured.seconds.toFixed(2)} s (${Math.round(measured.rate)}/s, non-2xx ${JSON.stringify(measured.non2xx)})\n`
}

/** What a phase cost Redis per request, and the service too when it ran one. */
export function cpuPerRequest ({ measured, redisCpu, serviceCpu }: PhaseCost<Measurement>, withService: boolean): string {
  const n = measured.requests
  return `  Redis CPU ${(redisCpu / n).toFixed(1)} µs per request` + (withService ? `; service CPU ${(serviceCpu / n).toFixed(1)} µs` : '')
}
