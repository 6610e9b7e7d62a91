import type { HttpRequestSpec, RowSpec } from '../scenarios/scenario.js'
import { directLoad, HttpLoadProcess, type CommandSender, type LoadOptions, type Measurement } from './load.js'
import { cpuMicros, rssMegabytes } from './proc.js'
import { rssTrend, type RowResult, type RssTrend } from './results.js'

/** Where a row's requests go: the HTTP process and, for service rows, the Redis behind it. */
export interface RowTarget {
  url: string
  pid: number
  settings: string
  redis?: CommandSender
  /** The redis-server behind the service, whose CPU time is read around both sides of a row. */
  redisPid?: number
}

/** A no-op HTTP route to measure right after a row, under the same load of the machine. */
export interface AdjacentCeiling {
  target: RowTarget
  requests: HttpRequestSpec[]
}

export interface RowContext {
  target: RowTarget
  /** Given for rows judged against the ceiling: measured after the row's HTTP side, before its direct side. */
  adjacentCeiling?: AdjacentCeiling
  familyTitle: string
  keyPrefix: string
  connections: number
  duration: number
  warmup: number
  soak: number
}

/** A generous count bound: far above what one process pair on this machine can answer per second. */
const MAX_RATE = 200_000
const RSS_SAMPLES_PER_SOAK = 120

function bounded (connections: number, seconds: number): LoadOptions {
  return { connections, seconds, maxRequests: Math.ceil(seconds * MAX_RATE) }
}

function problems (side: string, m: Measurement): string[] {
  const out: string[] = []
  const non2xx = Object.entries(m.non2xx)
  if (non2xx.length) out.push(`${side}: non-2xx answers ${non2xx.map(([status, n]) => `${status}×${n}`).join(', ')}`)
  if (m.errors) out.push(`${side}: ${m.errors} errors`)
  return out
}

function redisCpu (target: RowTarget): number {
  return target.redisPid ? cpuMicros(target.redisPid) : 0
}

/** A window shorter than this answers nothing when the machine stalls for longer: it is measured once more over this. */
const RETRY_SECONDS = 2

/**
 * One side of a row measured over `seconds`; when that window answered nothing without an error (the machine
 * or Redis stalled for longer than a smoke run's fraction of a second), once more over RETRY_SECONDS, noted.
 * A side that answers nothing then is a failure of the row.
 */
async function untilAnswered<T extends { measured: Measurement }> (side: string, seconds: number, notes: string[],
  measure: (seconds: number) => Promise<T>): Promise<T> {
  const first = await measure(seconds)
  const { requests, errors, non2xx } = first.measured
  if (requests > 0 || errors > 0 || Object.keys(non2xx).length > 0 || seconds >= RETRY_SECONDS) return first
  notes.push(`${side}: the ${seconds} s window answered nothing, so it was measured again over ${RETRY_SECONDS} s`)
  return measure(RETRY_SECONDS)
}

/** Samples a process's RSS at a steady interval until stopped. */
function sampleRss (pid: number, intervalMs: number) {
  const started = Date.now()
  const samples: Array<[number, number]> = [[0, rssMegabytes(pid)]]
  const timer = setInterval(() => samples.push([(Date.now() - started) / 1000, rssMegabytes(pid)]), intervalMs)
  return { stop: (): RssTrend => { clearInterval(timer); return rssTrend(samples) } }
}

/** A measurement over HTTP, with the answering process's CPU time per request read from /proc around it. */
async function measureHttp (load: HttpLoadProcess, target: RowTarget, requests: HttpRequestSpec[], options: LoadOptions):
  Promise<Measurement & { cpuUsPerRequest: number }> {
  const before = cpuMicros(target.pid)
  const measured = await load.run(target.url, requests, options)
  const cpu = cpuMicros(target.pid) - before
  return { ...measured, cpuUsPerRequest: measured.requests ? cpu / measured.requests : 0 }
}

/**
 * Warm-up then measurement over HTTP, with the answering process's CPU time read from /proc around
 * the measurement; then, when asked, the same for the no-op ceiling; then the row's RedisJSON command
 * sent straight to Redis.
 */
export async function measureRow (row: RowSpec, context: RowContext): Promise<RowResult> {
  const load = HttpLoadProcess.start()
  try {
    return await measureWith(load, row, context)
  } finally {
    load.stop()
  }
}

async function measureWith (load: HttpLoadProcess, row: RowSpec, context: RowContext): Promise<RowResult> {
  const { target } = context
  const connections = row.connections ?? context.connections
  const seconds = row.soak ? context.soak : context.duration
  const failures: string[] = []

  const warm = await load.run(target.url, row.requests, bounded(connections, context.warmup))
  failures.push(...problems('warm-up', warm))
  const rss = row.soak ? sampleRss(target.pid, Math.max(100, (seconds * 1000) / RSS_SAMPLES_PER_SOAK)) : undefined
  const notes: string[] = []
  const { measured, redisCpuUs, from, to } = await untilAnswered('service', seconds, notes, async (window) => {
    const redisBefore = redisCpu(target)
    const from = Date.now()
    const measured = await measureHttp(load, target, row.requests, bounded(connections, window))
    return { measured, redisCpuUs: redisCpu(target) - redisBefore, from, to: Date.now() }
  })
  const rssMb = Math.round(rssMegabytes(target.pid) * 10) / 10
  const trend = rss?.stop()
  failures.push(...problems('service', measured))
  if (measured.requests === 0) failures.push('service: no request answered')

  let ceiling: RowResult['ceiling']
  if (context.adjacentCeiling) {
    const { target: noop, requests } = context.adjacentCeiling
    failures.push(...problems('ceiling warm-up', await load.run(noop.url, requests, bounded(connections, context.warmup))))
    ceiling = (await untilAnswered('ceiling', seconds, notes, async (window) =>
      ({ measured: await measureHttp(load, noop, requests, bounded(connections, window)) }))).measured
    failures.push(...problems('ceiling', ceiling))
    if (ceiling.requests === 0) failures.push('ceiling: no request answered')
  }

  let direct: RowResult['direct']
  if (row.direct && target.redis) {
    const args = [row.direct.args[0]!, context.keyPrefix + row.direct.key, ...row.direct.args.slice(1)]
    // A missing key answers null, not an error: it would measure no work at all.
    const first = await target.redis.sendCommand(args).catch((error: Error) => error)
    if (first === null) failures.push('direct: the command answered null (no such document)')
    if (first instanceof Error) failures.push(`direct: ${first.message}`)
    const directWarm = await directLoad(target.redis, args, bounded(connections, context.warmup))
    failures.push(...problems('direct warm-up', directWarm))
    const directRedisBefore = redisCpu(target)
    const measuredDirect = await directLoad(target.redis, args, bounded(connections, seconds))
    const directRedisUs = redisCpu(target) - directRedisBefore
    failures.push(...problems('direct', measuredDirect))
    if (measuredDirect.requests === 0) failures.push('direct: no command answered')
    direct = {
      ...measuredDirect,
      title: row.direct.title,
      ...(target.redisPid && measuredDirect.requests ? { redisCpuUsPerRequest: directRedisUs / measuredDirect.requests } : {})
    }
  }

  return {
    id: row.id,
    family: row.family,
    familyTitle: context.familyTitle,
    title: row.title,
    target: row.target,
    settings: target.settings,
    connections,
    service: {
      ...measured,
      ...(target.redisPid && measured.requests ? { redisCpuUsPerRequest: redisCpuUs / measured.requests } : {}),
      rssMb,
      from,
      to
    },
    ...(ceiling ? { ceiling } : {}),
    ...(direct ? { direct, ratio: direct.rate ? measured.rate / direct.rate : 0 } : {}),
    ...(trend ? { rss: trend } : {}),
    ...(notes.length ? { notes } : {}),
    failures
  }
}
