import type { Measurement } from '../lib/load.js'
import type { RowResult } from '../lib/results.js'

/** The columns of RedisJSON's published results, in their order. */
export const CSV_HEADER = 'title,concurrency,rate,average latency,50.00%-tile,90.00%-tile,95.00%-tile,99.00%-tile,99.50%-tile,100.00%-tile'

/** RFC 4180 quoting: only when needed, quotes doubled. */
export function csvField (text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

function line (title: string, concurrency: number, m: Measurement): string {
  const { latency } = m
  const ms = [latency.mean, latency.p50, latency.p90, latency.p95, latency.p99, latency.p99_5, latency.max]
  return [csvField(title), String(concurrency), m.rate.toFixed(2), ...ms.map((x) => x.toFixed(2))].join(',')
}

/** One line per measurement: each row's HTTP side, then the same work sent straight to Redis. */
export function toCsv (rows: readonly RowResult[]): string {
  const lines = [CSV_HEADER]
  for (const row of rows) {
    const where = row.target === 'cached' ? `[${row.familyTitle}; ${row.settings}]` : `[${row.familyTitle}]`
    lines.push(line(`${where} ${row.title}`, row.connections, row.service))
    if (row.direct) lines.push(line(`${where} ${row.direct.title}`, row.connections, row.direct))
  }
  return lines.join('\n') + '\n'
}
