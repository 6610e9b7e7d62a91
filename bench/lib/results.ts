import type { Target } from '../scenarios/scenario.js'
import type { Measurement } from './load.js'
import type { GcSummary } from './proc.js'

/** The HTTP side of a row: the load's figures plus what the answering process spent. */
export interface ServiceMeasurement extends Measurement {
  /** CPU time (user + system) of the answering process per request, in microseconds. */
  cpuUsPerRequest: number
  /** CPU time of redis-server per request while the service was measured (service rows). */
  redisCpuUsPerRequest?: number
  /** RSS of the answering process at the end of the measurement. */
  rssMb: number
  /** Garbage collections of the answering process during the measurement (service rows only). */
  gc?: GcSummary
  /** Wall-clock window of the measurement, ms since epoch. */
  from: number
  to: number
}

export interface RssTrend {
  /** Seconds since the soak started, and RSS in MB. */
  samples: Array<[number, number]>
  maxMb: number
  meanMb: number
  /** Least-squares growth over the samples after the first fifth, projected over the whole soak. */
  growthMb: number
}

export interface RowResult {
  id: string
  family: string
  familyTitle: string
  title: string
  target: Target
  /** The settings of the answering process, e.g. `cache off` or `cache 10000 (tracking on)`. */
  settings: string
  connections: number
  service: ServiceMeasurement
  /**
   * The no-op ceiling measured right after this row's HTTP side, for rows judged against the ceiling:
   * the machine slows under sustained load, so a ceiling measured minutes earlier flatters it.
   */
  ceiling?: Measurement & { cpuUsPerRequest: number }
  direct?: Measurement & { title: string, redisCpuUsPerRequest?: number }
  /** service rate / direct rate. */
  ratio?: number
  rss?: RssTrend
  /** What the run did differently for this row, e.g. a side measured again after a window answered nothing. */
  notes?: string[]
  /** Why the row failed (non-2xx answers, errors, no throughput); empty when it did not. */
  failures: string[]
}

export type TargetStatus = 'pass' | 'miss' | 'not measured'

export interface TargetResult {
  target: string
  measured: string
  /** The figure compared with the threshold (a ratio, or milliseconds, or megabytes). */
  value?: number
  threshold: string
  status: TargetStatus
}

export interface RunResult {
  format: 'jsondocs-bench/1'
  startedAt: string
  finishedAt: string
  machine: Record<string, unknown>
  versions: Record<string, string>
  settings: Record<string, unknown>
  rows: RowResult[]
  targets: TargetResult[]
}

/** A least-squares line through the samples after the first fifth (warming), as growth over the span. */
export function rssTrend (samples: Array<[number, number]>): RssTrend {
  const values = samples.map(([, mb]) => mb)
  const maxMb = values.length ? Math.max(...values) : 0
  const meanMb = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0
  const settled = samples.slice(Math.floor(samples.length / 5))
  let growthMb = 0
  if (settled.length >= 3) {
    const n = settled.length
    const meanX = settled.reduce((a, [x]) => a + x, 0) / n
    const meanY = settled.reduce((a, [, y]) => a + y, 0) / n
    const sxy = settled.reduce((a, [x, y]) => a + (x - meanX) * (y - meanY), 0)
    const sxx = settled.reduce((a, [x]) => a + (x - meanX) ** 2, 0)
    const span = samples[samples.length - 1]![0] - samples[0]![0]
    growthMb = sxx === 0 ? 0 : (sxy / sxx) * span
  }
  const round = (x: number) => Math.round(x * 10) / 10
  return { samples, maxMb: round(maxMb), meanMb: round(meanMb), growthMb: round(growthMb) }
}
