import { describe, expect, it } from 'vitest'
import { compareRuns, formatComparison } from '../../bench/compare.js'
import { row, run } from './rows.js'

describe('compare', () => {
  const before = {
    ...run([row('object-380b/get-sclr', 8000, { p99: 2, directRate: 40000 }), row('numbers/incr', 5000)], { durationSeconds: 4 }),
    targets: [{ target: 't1', measured: '', threshold: '', status: 'miss' as const }]
  }
  const after = {
    ...run([row('object-380b/get-sclr', 10000, { p99: 1, directRate: 40000 }), row('numbers/mult', 4000)], { durationSeconds: 5 }),
    targets: [{ target: 't1', measured: '', threshold: '', status: 'pass' as const }]
  }
  const comparison = compareRuns(before, after)

  it('matches rows by id and gives the relative change', () => {
    const sclr = comparison.rows.find((r) => r.id === 'object-380b/get-sclr')!
    expect(sclr.rateChange).toBeCloseTo(0.25)
    expect(sclr.p99Change).toBeCloseTo(-0.5)
    expect(sclr.before?.ratio).toBeCloseTo(0.2)
    expect(sclr.after?.ratio).toBeCloseTo(0.25)
  })

  it('keeps rows only one run measured, without a change', () => {
    const incr = comparison.rows.find((r) => r.id === 'numbers/incr')!
    const mult = comparison.rows.find((r) => r.id === 'numbers/mult')!
    expect(incr.after).toBeUndefined()
    expect(incr.rateChange).toBeUndefined()
    expect(mult.before).toBeUndefined()
  })

  it('reports target status changes and differing settings', () => {
    expect(comparison.targets).toEqual([{ target: 't1', before: 'miss', after: 'pass' }])
    expect(comparison.settingsChanged).toEqual(['durationSeconds'])
    const text = formatComparison(comparison)
    expect(text).toContain('| object-380b/get-sclr | GET /docs/{key}/object-380b/get-sclr | 8,000 | 10,000 | +25.0% | 2.00 | 1.00 | -50.0% | 0.20x | 0.25x |')
    expect(text).toContain('| t1 | miss | pass |')
    expect(text).toContain('Settings differ between the runs: durationSeconds.')
  })
})
