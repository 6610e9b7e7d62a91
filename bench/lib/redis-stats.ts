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
