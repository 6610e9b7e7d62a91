import type { Measurement } from '../../bench/lib/load.js'
import type { RowResult, RunResult } from '../../bench/lib/results.js'

/** A measurement with a given rate and p99; the other percentiles follow from them. */
export function measurement (rate: number, p99 = 1): Measurement {
  return {
    requests: rate * 4,
    seconds: 4,
    rate,
    latency: { mean: p99 / 3, p50: p99 / 4, p90: p99 / 2, p95: p99 * 0.7, p99, p99_5: p99 * 1.2, max: p99 * 3 },
    errors: 0,
    non2xx: {}
  }
}

/** A result row as the runner writes it. */
export function row (id: string, rate: number, extra: Partial<RowResult> & { p99?: number, cpu?: number, directRate?: number } = {}): RowResult {
  const { p99 = 1, cpu = 50, directRate, ...rest } = extra
  const family = id.split('/')[0]!
  return {
    id,
    family,
    familyTitle: family,
    title: `GET /docs/{key}/${id}`,
    target: family === 'ceiling' || family === 'cached' || family === 'floor' ? family : 'service',
    settings: 'cache off',
    connections: 16,
    service: { ...measurement(rate, p99), cpuUsPerRequest: cpu, rssMb: 80, from: 0, to: 4000 },
    ...(directRate === undefined
      ? {}
      : { direct: { ...measurement(directRate), title: `JSON.GET {key} ${id}` }, ratio: rate / directRate }),
    failures: [],
    ...rest
  }
}

export function run (rows: RowResult[], settings: Record<string, unknown> = {}): RunResult {
  return {
    format: 'jsondocs-bench/1',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:10:00.000Z',
    machine: { cores: 2 },
    versions: { node: 'v20' },
    settings,
    rows,
    targets: []
  }
}
