import type { RowResult, TargetResult } from './results.js'

/**
 * The no-op route at the rows' concurrency, first in the run: the ceiling a row is judged against when
 * the runner did not measure one right after it.
 */
export const CEILING_ROW = 'ceiling/noop-c16'
/** The same ceiling measured after every other row, to show drift in the machine's load. */
export const CEILING_AGAIN_ROW = 'ceiling/noop-c16-end'
/** Small reads and writes: 380 B root and leaf, set leaf, increment. */
export const SMALL_ROWS = ['object-380b/get-root', 'object-380b/get-sclr', 'object-380b/set-sclr', 'numbers/incr']
export const CACHED_SMALL_ROWS = ['cached/380b-get-root', 'cached/380b-get-sclr']
/** Rows judged against the ceiling. */
export const CEILING_JUDGED_ROWS = [...SMALL_ROWS, ...CACHED_SMALL_ROWS]
/** The same small work on the floor server, shown beside the ceiling but not judged. */
export const FLOOR_ROWS = ['floor/get-root', 'floor/get-sclr', 'floor/set-sclr', 'floor/incr']
/** Rows the runner measures the ceiling again right after. */
export const BESIDE_CEILING_ROWS = [...CEILING_JUDGED_ROWS, ...FLOOR_ROWS]
export const CACHED_LARGE_ROOT = 'cached/40k-get-root'
export const LEAF_SMALL = 'object-380b/get-sclr'
export const LEAF_1MB = 'size-sweep/leaf-1mb'
export const SOAK_ROW = 'soak/mixed'
/** Issue 21's query rows, each beside the same FT.SEARCH sent straight to Redis. */
export const QUERY_ROWS = ['queries/selective', 'queries/sorted-page', 'queries/count', 'queries/deep-page']
/** The selective query on the floor server: what the stack itself reaches beside the same FT.SEARCH. */
export const QUERY_FLOOR_ROW = 'queries/floor-selective'
/** An aggregation, beside the FT.AGGREGATE that groups and reduces the same matches in Redis. */
export const AGGREGATE_ROW = 'queries/aggregate'

const RATE_OF_CEILING = 0.65
const CPU_OF_CEILING = 1.5
// Issue 19's: cached reads go through fastify's whole lifecycle, hooks and validation included.
const CACHED_RATE_OF_CEILING = 0.75
const P99_MS = 2
const GC_PAUSE_MS = 10
const LEAF_SLOWDOWN = 1.2
const RSS_MB = 200
const QUERY_RATE_OF_DIRECT = 0.5
const AGGREGATE_RATE_OF_DIRECT = 0.8
/** A soak's fitted growth below this (or 5% of its mean RSS, if larger) counts as no growth trend. */
const RSS_GROWTH_MB = 5

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

function judge (target: string, measured: string, value: number, threshold: string, pass: boolean): TargetResult {
  return { target, measured, value: round(value, 3), threshold, status: pass ? 'pass' : 'miss' }
}

function missing (target: string, threshold: string, what: string): TargetResult {
  return { target, measured: `${what} not measured in this run`, threshold, status: 'not measured' }
}

/** The performance targets, judged on one run's rows (ratios within the run). */
export function evaluateTargets (rows: readonly RowResult[]): TargetResult[] {
  const byId = new Map(rows.map((row) => [row.id, row]))
  const ceiling = byId.get(CEILING_ROW)
  const results: TargetResult[] = []

  for (const id of SMALL_ROWS) {
    const row = byId.get(id)
    const rateTarget = `${id}: rate >= ${RATE_OF_CEILING}x ceiling`
    const cpuTarget = `${id}: service CPU/request <= ${CPU_OF_CEILING}x ceiling's`
    const p99Target = `${id}: p99 <= ${P99_MS} ms`
    const against = row && ceilingFor(row, ceiling)
    if (!row || !against) {
      results.push(missing(rateTarget, `>= ${RATE_OF_CEILING}`, row ? CEILING_ROW : id))
      results.push(missing(cpuTarget, `<= ${CPU_OF_CEILING}`, row ? CEILING_ROW : id))
    } else {
      results.push(judgeRate(rateTarget, row, against, RATE_OF_CEILING))
      const cpu = overCeiling(row.service.cpuUsPerRequest, against, 'cpuUsPerRequest', (us) => `${round(us, 1)} µs`)
      results.push(judge(cpuTarget, cpu.measured, cpu.ratio, `<= ${CPU_OF_CEILING}`, cpu.ratio <= CPU_OF_CEILING))
    }
    if (!row) results.push(missing(p99Target, `<= ${P99_MS} ms`, id))
    else results.push(judge(p99Target, `${row.service.latency.p99} ms`, row.service.latency.p99, `<= ${P99_MS} ms`, row.service.latency.p99 <= P99_MS))
  }

  for (const id of CACHED_SMALL_ROWS) {
    const row = byId.get(id)
    const target = `${id}: rate >= ${CACHED_RATE_OF_CEILING}x ceiling (${row?.settings ?? 'cache on'})`
    const against = row && ceilingFor(row, ceiling)
    if (!row || !against) results.push(missing(target, `>= ${CACHED_RATE_OF_CEILING}`, row ? CEILING_ROW : id))
    else results.push(judgeRate(target, row, against, CACHED_RATE_OF_CEILING))
  }

  const large = byId.get(CACHED_LARGE_ROOT)
  const largeTarget = `${CACHED_LARGE_ROOT}: faster than reading it from Redis directly`
  if (!large?.direct) results.push(missing(largeTarget, '> 1', CACHED_LARGE_ROOT))
  else {
    const ratio = large.service.rate / large.direct.rate
    results.push(judge(largeTarget, `${fmt(large.service.rate)}/s vs ${fmt(large.direct.rate)}/s direct`, ratio, '> 1', ratio > 1))
  }

  for (const id of QUERY_ROWS) {
    const row = byId.get(id)
    const target = `${id}: rate >= ${QUERY_RATE_OF_DIRECT}x the same FT.SEARCH sent directly`
    if (!row?.direct) {
      results.push(missing(target, `>= ${QUERY_RATE_OF_DIRECT}`, id))
      continue
    }
    const ratio = row.service.rate / row.direct.rate
    const floor = id === 'queries/selective' ? byId.get(QUERY_FLOOR_ROW) : undefined
    const stack = floor?.direct ? `; the floor server ${fmt(floor.service.rate)}/s vs ${fmt(floor.direct.rate)}/s (${round(floor.service.rate / floor.direct.rate)}x)` : ''
    results.push(judge(target, `${fmt(row.service.rate)}/s vs ${fmt(row.direct.rate)}/s direct${stack}`, ratio, `>= ${QUERY_RATE_OF_DIRECT}`,
      ratio >= QUERY_RATE_OF_DIRECT))
  }

  const aggregate = byId.get(AGGREGATE_ROW)
  const aggregateTarget = `${AGGREGATE_ROW}: rate >= ${AGGREGATE_RATE_OF_DIRECT}x the same FT.AGGREGATE sent directly`
  if (!aggregate?.direct) results.push(missing(aggregateTarget, `>= ${AGGREGATE_RATE_OF_DIRECT}`, AGGREGATE_ROW))
  else {
    const ratio = aggregate.service.rate / aggregate.direct.rate
    results.push(judge(aggregateTarget, `${fmt(aggregate.service.rate)}/s vs ${fmt(aggregate.direct.rate)}/s direct`, ratio,
      `>= ${AGGREGATE_RATE_OF_DIRECT}`, ratio >= AGGREGATE_RATE_OF_DIRECT))
  }

  const gcRows = rows.filter((row) => row.service.gc)
  const gcTarget = `service GC pauses <= ${GC_PAUSE_MS} ms`
  if (gcRows.length === 0) results.push(missing(gcTarget, `<= ${GC_PAUSE_MS} ms`, 'GC'))
  else {
    const worst = gcRows.reduce((a, b) => (b.service.gc!.maxMs > a.service.gc!.maxMs ? b : a))
    const maxMs = worst.service.gc!.maxMs
    const count = gcRows.reduce((sum, row) => sum + row.service.gc!.count, 0)
    const kind = worst.service.gc!.longestKind ? `${worst.service.gc!.longestKind}, ` : ''
    results.push(judge(gcTarget, `longest ${maxMs} ms (${kind}${worst.id}), ${count} collections`, maxMs, `<= ${GC_PAUSE_MS} ms`, maxMs <= GC_PAUSE_MS))
  }

  const small = byId.get(LEAF_SMALL)
  const big = byId.get(LEAF_1MB)
  const leafTarget = `leaf read of 1 MB document within ${LEAF_SLOWDOWN}x of 380 B`
  if (!small || !big) results.push(missing(leafTarget, `<= ${LEAF_SLOWDOWN}`, small ? LEAF_1MB : LEAF_SMALL))
  else {
    const slowdown = small.service.rate / big.service.rate
    results.push(judge(leafTarget, `${fmt(big.service.rate)}/s vs ${fmt(small.service.rate)}/s`, slowdown,
      `<= ${LEAF_SLOWDOWN}`, slowdown <= LEAF_SLOWDOWN))
  }

  const soak = byId.get(SOAK_ROW)
  const rssTarget = `soak RSS < ${RSS_MB} MB`
  const growthTarget = 'soak RSS without growth trend'
  if (!soak?.rss) {
    results.push(missing(rssTarget, `< ${RSS_MB} MB`, SOAK_ROW))
    results.push(missing(growthTarget, `< ${RSS_GROWTH_MB} MB`, SOAK_ROW))
  } else {
    const { maxMb, meanMb, growthMb } = soak.rss
    const allowed = Math.max(RSS_GROWTH_MB, meanMb * 0.05)
    results.push(judge(rssTarget, `max ${maxMb} MB`, maxMb, `< ${RSS_MB} MB`, maxMb < RSS_MB))
    results.push(judge(growthTarget, `fitted growth ${growthMb} MB over ${round(soak.service.seconds, 0)} s`, growthMb,
      `< ${round(allowed, 1)} MB`, growthMb < allowed))
  }
  return results
}

interface CeilingFigures {
  rate: number
  cpuUsPerRequest: number
}

/** A ceiling a row is judged against, how it was measured, and the run's first ceiling when that is another. */
interface Ceiling extends CeilingFigures {
  when: string
  start?: CeilingFigures
}

/** The ceiling measured right after the row when there is one, else the run's first ceiling. */
function ceilingFor (row: RowResult, first: RowResult | undefined): Ceiling | undefined {
  const start = first && { rate: first.service.rate, cpuUsPerRequest: first.service.cpuUsPerRequest }
  if (row.ceiling) return { ...row.ceiling, when: 'right after it', ...(start ? { start } : {}) }
  return start && { ...start, when: 'at the start' }
}

/** A row's figure over the same figure of its ceiling, in words that also give the ratio to the run's first ceiling. */
function overCeiling (value: number, against: Ceiling, figure: keyof CeilingFigures, format: (x: number) => string) {
  const { start } = against
  const atStart = start ? `; ${round(value / start[figure])}x the ${format(start[figure])} at the start` : ''
  return { ratio: value / against[figure], measured: `${format(value)} vs ${format(against[figure])} ${against.when}${atStart}` }
}

function judgeRate (target: string, row: RowResult, against: Ceiling, threshold: number): TargetResult {
  const rate = overCeiling(row.service.rate, against, 'rate', (perSecond) => `${fmt(perSecond)}/s`)
  return judge(target, rate.measured, rate.ratio, `>= ${threshold}`, rate.ratio >= threshold)
}

function fmt (rate: number): string {
  return Math.round(rate).toLocaleString('en-US')
}
