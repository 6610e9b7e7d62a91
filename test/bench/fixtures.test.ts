import { describe, expect, it } from 'vitest'
import {
  businessListing, emptyString, jsonBytes, mixedArray, nestedObject, searchResults, sizedDocument, webApp, type Json
} from '../../bench/fixtures.js'
import { allScenarios } from '../../bench/scenarios/index.js'

/** The value at a JSON Pointer given as tokens, or undefined. */
function at (value: Json, tokens: string[]): Json | undefined {
  let current: Json | undefined = value
  for (const token of tokens) {
    if (Array.isArray(current)) current = current[Number(token)]
    else if (current !== null && typeof current === 'object') current = current[token]
    else return undefined
  }
  return current
}

describe('benchmark fixtures have the sizes of RedisJSON benchmark documents', () => {
  it.each([
    ['empty string', emptyString(), 2, 2],
    ['nested object', nestedObject(), 340, 420],
    ['array', mixedArray(), 1300, 1500],
    ['web-app object', webApp(), 3300, 3700],
    ['search results', searchResults(), 17_000, 19_000],
    ['business listing', businessListing(), 38_000, 42_000]
  ])('%s weighs what its model does', (_name, value, low, high) => {
    expect(jsonBytes(value)).toBeGreaterThanOrEqual(low)
    expect(jsonBytes(value)).toBeLessThanOrEqual(high)
  })

  it.each([100, 1_000, 10_000, 100_000, 1_000_000])('a sweep document of %i bytes is within a tenth of that size, with a small leaf', (bytes) => {
    const value = sizedDocument(bytes)
    expect(Math.abs(jsonBytes(value) - bytes) / bytes).toBeLessThan(0.1)
    expect(at(value, ['leaf'])).toBe(1)
  })

  it('stays under the service\'s default body limit at 1 MB', () => {
    expect(jsonBytes(sizedDocument(1_000_000))).toBeLessThan(1_048_576)
  })
})

describe('benchmark fixtures have the shapes RedisJSON benchmarks address', () => {
  it('the nested object has scalars at every level', () => {
    const value = nestedObject()
    expect(typeof at(value, ['sclr'])).toBe('number')
    expect(typeof at(value, ['sub_doc', 'sclr'])).toBe('number')
    expect(typeof at(value, ['array_of_docs', '1', 'sclr'])).toBe('number')
  })

  it('the array holds a string first, null at 7 and an object with zero at 8', () => {
    const value = mixedArray()
    expect(typeof at(value, ['0'])).toBe('string')
    expect(at(value, ['7'])).toBeNull()
    expect(at(value, ['8', 'zero'])).toBe(0)
  })

  it('the larger documents have the leaves their rows read and write', () => {
    expect(typeof at(webApp(), ['web-app', 'servlet', '0', 'servlet-name'])).toBe('string')
    expect(typeof at(searchResults(), ['ResultSet', 'totalResultsAvailable'])).toBe('number')
    expect(at(businessListing(), ['message', 'code'])).toBe(0)
  })

  it('are the same on every call (deterministic)', () => {
    expect(JSON.stringify(searchResults())).toBe(JSON.stringify(searchResults()))
    expect(JSON.stringify(sizedDocument(10_000))).toBe(JSON.stringify(sizedDocument(10_000)))
  })
})

describe('scenarios', () => {
  const scenarios = allScenarios()

  it('give every row a unique id within its family', () => {
    const ids = scenarios.flatMap((s) => s.rows.map((r) => r.id))
    expect(new Set(ids).size).toBe(ids.length)
    for (const s of scenarios) for (const r of s.rows) expect(r.id.startsWith(`${s.family}/`)).toBe(true)
  })

  it('read and write only documents their family writes first, at locations that exist', () => {
    for (const scenario of scenarios) {
      for (const r of scenario.rows) {
        // A family that prepares its own data (an indexed collection) is checked by its own rows' answers.
        if (!r.direct || scenario.prepare) continue
        const document = scenario.documents[r.direct.key]
        expect(document, r.id).toBeDefined()
        const path = decodeURIComponent(r.requests[0]!.path.slice(`/docs/${encodeURIComponent(r.direct.key)}`.length))
        const tokens = path === '' ? [] : path.slice(1).split('/')
        expect(at(document!, tokens), r.id).toBeDefined()
      }
    }
  })
})
