import type { RowResult, RunResult } from '../lib/results.js'
import { CEILING_AGAIN_ROW, CEILING_ROW } from '../lib/targets.js'

/** A table cell: pipes escaped, line breaks flattened. */
export function cell (text: string | number): string {
  return String(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
}

function table (header: string[], rows: Array<Array<string | number>>): string {
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)
  ].join('\n')
}

const rate = (x: number) => Math.round(x).toLocaleString('en-US')
const ms = (x: number) => x.toFixed(2)
const times = (x: number | undefined) => x === undefined ? '' : `${x.toFixed(2)}x`
const us = (x: number | undefined) => x === undefined ? '-' : x.toFixed(1)
const percent = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`

function ceilingTable (rows: RowResult[]): string {
  return table(['row', 'concurrency', 'req/s', 'avg ms', 'p50', 'p99', 'p99.5', 'max', 'CPU µs/req'],
    rows.map((row) => [row.id, row.connections, rate(row.service.rate), ms(row.service.latency.mean), ms(row.service.latency.p50),
      ms(row.service.latency.p99), ms(row.service.latency.p99_5), ms(row.service.latency.max), row.service.cpuUsPerRequest.toFixed(1)]))
}

function familyTable (rows: RowResult[], ceilingRate: number | undefined): string {
  return table(
    ['request', 'settings', 'service req/s', 'direct req/s', 'service/direct', 'of ceiling', 'of ceiling right after (rate; CPU)',
      'p50 ms', 'p99 ms', 'direct p99 ms', 'CPU µs/req', 'Redis µs/req (service / direct)', 'RSS MB', 'longest GC ms'],
    rows.map((row) => [
      row.title,
      row.settings,
      rate(row.service.rate),
      row.direct ? rate(row.direct.rate) : '',
      times(row.ratio),
      ceilingRate ? times(row.service.rate / ceilingRate) : '',
      row.ceiling
        ? `${times(row.service.rate / row.ceiling.rate)}; ${times(row.service.cpuUsPerRequest / row.ceiling.cpuUsPerRequest)}`
        : '',
      ms(row.service.latency.p50),
      ms(row.service.latency.p99),
      row.direct ? ms(row.direct.latency.p99) : '',
      row.service.cpuUsPerRequest.toFixed(1),
      `${us(row.service.redisCpuUsPerRequest)} / ${us(row.direct?.redisCpuUsPerRequest)}`,
      row.service.rssMb.toFixed(0),
      row.service.gc ? `${row.service.gc.maxMs.toFixed(2)}${row.service.gc.longestKind ? ` (${row.service.gc.longestKind})` : ''}` : ''
    ]))
}

/** The run as markdown: settings, targets, the ceiling sweep, then one table per workload family. */
export function toMarkdown (run: RunResult): string {
  const ceilingRate = run.rows.find((row) => row.id === CEILING_ROW)?.service.rate
  const out: string[] = [`# jsondocs benchmark, ${run.startedAt}`, '']
  out.push(`Machine: ${Object.entries(run.machine).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('/') : String(v)}`).join('; ')}.`, '')
  out.push(`Versions: ${Object.entries(run.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`, '')
  out.push(`Settings: ${Object.entries(run.settings).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('; ')}.`, '')

  const failed = run.rows.filter((row) => row.failures.length > 0)
  if (failed.length) {
    out.push('## Failed rows', '', ...failed.map((row) => `- **${row.id}**: ${row.failures.join('; ')}`), '')
  }
  const noted = run.rows.filter((row) => row.notes?.length)
  if (noted.length) {
    out.push('## Notes', '', ...noted.map((row) => `- **${row.id}**: ${row.notes!.join('; ')}`), '')
  }
  out.push('## Targets', '', table(['target', 'measured', 'value', 'threshold', 'result'],
    run.targets.map((t) => [t.target, t.measured, t.value ?? '', t.threshold, t.status])), '')

  const families = new Map<string, RowResult[]>()
  for (const row of run.rows) families.set(row.family, [...(families.get(row.family) ?? []), row])
  for (const [family, rows] of families) {
    out.push(`## ${rows[0]!.familyTitle}`, '')
    if (family === 'ceiling') {
      out.push(ceilingTable(rows), '')
      const again = rows.find((row) => row.id === CEILING_AGAIN_ROW)
      if (ceilingRate && again) {
        out.push(`The ceiling moved ${percent(again.service.rate / ceilingRate - 1)} between the start and the end of the run: ` +
          'a measure of how much the machine\'s speed changed under the figures. Rows judged against the ceiling are ' +
          'judged against one measured right after them.', '')
      }
    }
    else out.push(familyTable(rows, ceilingRate), '')
    for (const row of rows) {
      if (row.rss) {
        out.push(`RSS over ${Math.round(row.service.seconds)} s: max ${row.rss.maxMb} MB, mean ${row.rss.meanMb} MB, ` +
          `fitted growth ${row.rss.growthMb} MB.`, '')
      }
    }
  }
  return out.join('\n')
}
