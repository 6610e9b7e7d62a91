import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'
import { compileLinearPattern, engineOf } from '../../src/collections/linear-regexp.js'

/** Strings over a and b with a c every `gap` characters: a DFA for a[ab]{n}c builds a state per character. */
function thrashing (length: number, gap: number) {
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  return Array.from({ length }, (_, index) => index % gap === 0 ? 'c' : random() < 0.5 ? 'a' : 'b').join('')
}

describe('the linear-time engine', () => {
  it('finds in re2js what it manages: the one-pass matcher it turns off, the DFA whose states it bounds', () => {
    const compiled = RE2JS.compile('^a+$')
    const engine = engineOf(compiled)
    expect(engine).toHaveProperty('onepass')
    if (engine) engine.onepass = null
    compiled.test('aaa')
    expect(engine?.lazyDFA).toEqual(expect.objectContaining({
      stateBudget: expect.any(Number), memBudget: expect.any(Number), failed: false, clearCache: expect.any(Function)
    }))
  })

  it('holds a bounded amount of DFA states however many patterns a hostile text makes build one per character', () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const text = thrashing(40_000, 25)
    const patterns = []
    gc()
    const before = process.memoryUsage().heapUsed
    for (let count = 0; count < 24; count++) {
      const pattern = compileLinearPattern(`a[ab]{${40 + count}}c`)
      expect(pattern.test(text)).toBe(false)
      patterns.push(pattern)
    }
    gc()
    // Kept, these DFAs would hold about 8 MB each.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(48 * 1024 * 1024)
  })

  it('answers the same once a pattern has left its DFA for the NFA', () => {
    const pattern = compileLinearPattern('a[ab]{40}c')
    const text = thrashing(20_000, 25)
    expect(pattern.test(text)).toBe(false)
    expect(pattern.test(text + 'a'.repeat(41) + 'c')).toBe(true)
    expect(pattern.test('a'.repeat(41) + 'c')).toBe(true)
    expect(pattern.test('a'.repeat(40) + 'c')).toBe(false)
  })
})
