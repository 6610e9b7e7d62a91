import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import type { RunResult, TargetStatus } from './lib/results.js'
import { cell } from './report/markdown.js'

export interface RowChange {
  id: string
  title: string
  before?: { rate: number, p99: number, ratio?: number }
  after?: { rate: number, p99: number, ratio?: number }
  /** after / before - 1, when both runs measured the row. */
  rateChange?: number
  p99Change?: number
}

export interface TargetChange {
  target: string
  before: TargetStatus | 'absent'
  after: TargetStatus | 'absent'
}

export interface Comparison {
  rows: RowChange[]
  targets: TargetChange[]
  /** Settings that differ between the runs: a diff across them compares more than the code. */
  settingsChanged: string[]
}

function side (run: RunResult, id: string) {
  const row = run.rows.find((r) => r.id === id)
  return row && { rate: row.service.rate, p99: row.service.latency.p99, ...(row.ratio === undefined ? {} : { ratio: row.ratio }) }
}

/** Matches two runs row by row (by id) and target by target. */
export function compareRuns (before: RunResult, after: RunResult): Comparison {
  const ids = [...new Set([...before.rows.map((r) => r.id), ...after.rows.map((r) => r.id)])]
  const rows = ids.map((id): RowChange => {
    const b = side(before, id)
    const a = side(after, id)
    const title = (after.rows.find((r) => r.id === id) ?? before.rows.find((r) => r.id === id))!.title
    return {
      id,
      title,
      ...(b ? { before: b } : {}),
      ...(a ? { after: a } : {}),
      ...(a && b && b.rate > 0 ? { rateChange: a.rate / b.rate - 1 } : {}),
      ...(a && b && b.p99 > 0 ? { p99Change: a.p99 / b.p99 - 1 } : {})
    }
  })
  const names = [...new Set([...before.targets.map((t) => t.target), ...after.targets.map((t) => t.target)])]
  const targets = names.map((target): TargetChange => ({
    target,
    before: before.targets.find((t) => t.target === target)?.status ?? 'absent',
    after: after.targets.find((t) => t.target === target)?.status ?? 'absent'
  }))
  const keys = [...new Set([...Object.keys(before.settings), ...Object.keys(after.settings)])]
  const settingsChanged = keys.filter((key) => JSON.stringify(before.settings[key]) !== JSON.stringify(after.settings[key]))
  return { rows, targets, settingsChanged }
}

const percent = (x: number | undefined) => x === undefined ? '' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`
const rate = (x: number | undefined) => x === undefined ? '' : Math.round(x).toLocaleString('en-US')
const ms = (x: number | undefined) => x === undefined ? '' : x.toFixed(2)
const ratio = (x: number | undefined) => x === undefined ? '' : `${x.toFixed(2)}x`

/** The comparison as markdown: rows first, then targets whose status changed. */
export function formatComparison (comparison: Comparison): string {
  const out: string[] = ['# Benchmark comparison (before -> after)', '']
  if (comparison.settingsChanged.length) {
    out.push(`Settings differ between the runs: ${comparison.settingsChanged.join(', ')}.`, '')
  }
  out.push('| row | request | req/s before | req/s after | change | p99 ms before | p99 ms after | change | service/direct before | after |')
  out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const row of comparison.rows) {
    out.push(`| ${[row.id, row.title, rate(row.before?.rate), rate(row.after?.rate), percent(row.rateChange),
      ms(row.before?.p99), ms(row.after?.p99), percent(row.p99Change), ratio(row.before?.ratio), ratio(row.after?.ratio)].map(cell).join(' | ')} |`)
  }
  const changed = comparison.targets.filter((t) => t.before !== t.after)
  out.push('', changed.length ? '## Targets that changed' : 'No target changed status.', '')
  if (changed.length) {
    out.push('| target | before | after |', '| --- | --- | --- |')
    for (const t of changed) out.push(`| ${cell(t.target)} | ${t.before} | ${t.after} |`)
  }
  return out.join('\n') + '\n'
}

function load (path: string): RunResult {
  const run = JSON.parse(readFileSync(path, 'utf8')) as RunResult
  if (run.format !== 'jsondocs-bench/1') throw new Error(`${path} is not a results.json of npm run bench`)
  return run
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [beforePath, afterPath] = process.argv.slice(2)
  if (!beforePath || !afterPath) {
    console.error('usage: npm run bench:compare -- <before/results.json> <after/results.json>')
    process.exitCode = 2
  } else {
    process.stdout.write(formatComparison(compareRuns(load(beforePath), load(afterPath))))
  }
}
