import { describe, expect, it } from 'vitest'
import { eventAt, type Change } from '../../src/live/changes.js'

const rewrites: Change[] = Array.from({ length: 10 }, (_, index) => ({ op: 'replace', path: '/a/n', value: index }))
const whole = { a: { n: 9 }, other: { n: 0 } }

describe('what an entry means at a location', () => {
  it('is its patch relative to the location, or nothing when it changed other places', () => {
    expect(eventAt(['a'], [{ op: 'replace', path: '/a/n', value: 1 }])).toEqual({ kind: 'patch', patch: [{ op: 'replace', path: '/n', value: 1 }] })
    expect(eventAt(['other'], rewrites)).toEqual({ kind: 'none' })
  })

  it('is the location\'s whole new value, from the document the entry carries, when that is shorter than the patch', () => {
    expect(eventAt([], rewrites, whole)).toEqual({ kind: 'put', value: whole })
    expect(eventAt(['a'], rewrites, whole)).toEqual({ kind: 'put', value: { n: 9 } })
    expect(eventAt(['other'], rewrites, whole)).toEqual({ kind: 'none' })
  })

  it('stays the patch when the value is not shorter', () => {
    const long = { a: { n: 1, text: 'x'.repeat(200) } }
    const one: Change[] = [{ op: 'replace', path: '/a/n', value: 1 }]
    expect(eventAt([], one, long)).toEqual({ kind: 'patch', patch: one })
    expect(eventAt(['a'], one, long)).toEqual({ kind: 'patch', patch: [{ op: 'replace', path: '/n', value: 1 }] })
  })
})
