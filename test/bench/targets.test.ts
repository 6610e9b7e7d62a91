import { describe, expect, it } from 'vitest'
import { parseGcLog, gcWithin } from '../../bench/lib/proc.js'
import { rssTrend } from '../../bench/lib/results.js'
import { evaluateTargets } from '../../bench/lib/targets.js'
import { measurement, row } from './rows.js'

const status = (results: ReturnType<typeof evaluateTargets>, start: string) =>
  results.filter((r) => r.target.startsWith(start)).map((r) => r.status)

describe('targets', () => {
  it('judge small operations against the ceiling of the same run', () => {
    const results = evaluateTargets([
      row('ceiling/noop-c16', 10000, { cpu: 40 }),
      row('object-380b/get-sclr', 7000, { cpu: 50, p99: 1.5 }),
      row('numbers/incr', 6000, { cpu: 70, p99: 2.5 })
    ])
    expect(status(results, 'object-380b/get-sclr')).toEqual(['pass', 'pass', 'pass'])
    expect(status(results, 'numbers/incr')).toEqual(['miss', 'miss', 'miss'])
    expect(results.find((r) => r.target.startsWith('numbers/incr: rate'))!.value).toBe(0.6)
  })

  it('judge a row against the ceiling measured right after it, when there is one', () => {
    const after = { ...measurement(8000), cpuUsPerRequest: 50 }
    const results = evaluateTargets([
      row('ceiling/noop-c16', 10000, { cpu: 40 }),
      row('object-380b/get-sclr', 6000, { cpu: 70, ceiling: after }),
      row('cached/380b-get-root', 7500, { ceiling: after })
    ])
    expect(status(results, 'object-380b/get-sclr')).toEqual(['pass', 'pass', 'pass'])
    const rate = results.find((r) => r.target.startsWith('object-380b/get-sclr: rate'))!
    expect(rate.value).toBe(0.75)
    expect(rate.measured).toBe('6,000/s vs 8,000/s right after it; 0.6x the 10,000/s at the start')
    expect(results.find((r) => r.target.startsWith('object-380b/get-sclr: service CPU'))!.value).toBe(1.4)
    expect(status(results, 'cached/380b-get-root')).toEqual(['pass'])
  })

  it('say "not measured" rather than pass when a row is missing', () => {
    const results = evaluateTargets([row('object-380b/get-sclr', 7000)])
    expect(status(results, 'object-380b/get-sclr')).toEqual(['not measured', 'not measured', 'pass'])
    expect(status(results, 'soak')).toEqual(['not measured', 'not measured'])
    expect(results.every((r) => r.status !== 'pass' || r.value !== undefined)).toBe(true)
  })

  it('compare cached 40 kB reads with reading Redis directly', () => {
    expect(status(evaluateTargets([row('cached/40k-get-root', 900, { directRate: 800 })]), 'cached/40k')).toEqual(['pass'])
    expect(status(evaluateTargets([row('cached/40k-get-root', 700, { directRate: 800 })]), 'cached/40k')).toEqual(['miss'])
  })

  it('judge query rows against the same FT.SEARCH sent directly, the selective one beside the floor server', () => {
    const results = evaluateTargets([
      row('queries/selective', 1000, { directRate: 5000 }),
      row('queries/floor-selective', 2400, { directRate: 5000 }),
      row('queries/count', 20, { directRate: 30 })
    ])
    expect(results.find((r) => r.target.startsWith('queries/selective'))).toMatchObject({
      status: 'miss', value: 0.2, measured: '1,000/s vs 5,000/s direct; the floor server 2,400/s vs 5,000/s (0.48x)'
    })
    expect(status(results, 'queries/count')).toEqual(['pass'])
    expect(status(results, 'queries/deep-page')).toEqual(['not measured'])
  })

  it('take the longest GC pause over all service rows', () => {
    const gc = (maxMs: number) => ({ count: 3, totalMs: maxMs * 2, maxMs })
    const fine = evaluateTargets([row('object-380b/get-root', 1, { service: { ...row('x/y', 1).service, gc: gc(4) } })])
    expect(status(fine, 'service GC')).toEqual(['pass'])
    const spiky = evaluateTargets([
      row('object-380b/get-root', 1, { service: { ...row('x/y', 1).service, gc: gc(4) } }),
      row('large-docs/40k-get-root', 1, { service: { ...row('x/y', 1).service, gc: gc(12) } })
    ])
    expect(spiky.find((r) => r.target.startsWith('service GC'))).toMatchObject({ status: 'miss', value: 12 })
  })

  it('judge leaf reads of 1 MB against 380 B', () => {
    const within = evaluateTargets([row('object-380b/get-sclr', 6000), row('size-sweep/leaf-1mb', 5500)])
    expect(status(within, 'leaf read')).toEqual(['pass'])
    const slower = evaluateTargets([row('object-380b/get-sclr', 6000), row('size-sweep/leaf-1mb', 4000)])
    expect(status(slower, 'leaf read')).toEqual(['miss'])
  })

  it('judge the soak by its largest RSS and its fitted growth', () => {
    const flat = rssTrend(Array.from({ length: 60 }, (_, i): [number, number] => [i * 2, 80 + (i % 2)]))
    const growing = rssTrend(Array.from({ length: 60 }, (_, i): [number, number] => [i * 2, 80 + i * 0.5]))
    expect(flat.growthMb).toBeLessThan(1)
    expect(growing.growthMb).toBeGreaterThan(20)
    expect(status(evaluateTargets([row('soak/mixed', 5000, { rss: flat })]), 'soak')).toEqual(['pass', 'pass'])
    expect(status(evaluateTargets([row('soak/mixed', 5000, { rss: growing })]), 'soak')).toEqual(['pass', 'miss'])
    expect(status(evaluateTargets([row('soak/mixed', 5000, { rss: { ...flat, maxMb: 250 } })]), 'soak')).toEqual(['miss', 'pass'])
  })
})

describe('probe logs', () => {
  it('parse into GC events and summarise a window', () => {
    const events = parseGcLog('1000.0 1.500 1\n2000.5 12.250 4\n\ngarbage\n3000.0 0.100 1\n')
    expect(events).toEqual([{ at: 1000, pauseMs: 1.5, kind: 1 }, { at: 2000.5, pauseMs: 12.25, kind: 4 }, { at: 3000, pauseMs: 0.1, kind: 1 }])
    expect(gcWithin(events, 1500, 3000)).toEqual({ count: 2, totalMs: 12.35, maxMs: 12.25, longestKind: 'major' })
    expect(gcWithin(events, 4000, 5000)).toEqual({ count: 0, totalMs: 0, maxMs: 0 })
  })
})
