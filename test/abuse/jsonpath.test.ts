import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { jsonPath } from './generators/jsonpath.js'
import { propertyOptions, runCase, startRig, timeoutFor } from './rig.js'
import { inject, seedDocument } from './send.js'

const rig = await startRig()

const item = (i: number) => ({
  name: `item ${i}`, price: i % 97, tags: ['a', 'b', String(i)], deep: { x: { x: { n: i } } }, s: 'text', a: [i, i + 1], 'a-b': null
})

/**
 * Documents a query runs against: a small one with every name the generator uses, one at the size
 * where a recursive descent is still allowed at the default limits, one wide and flat, one as deep as
 * documents may be.
 */
const documents: Record<string, string> = {
  small: JSON.stringify({ a: [1, 2, { n: 3 }], n: 1, s: 'text', o: { x: { x: 1 } }, items: Array.from({ length: 20 }, (_, i) => item(i)), $: 1, 0: 'zero' }),
  edge: JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => item(i)) }),
  flat: `[${Array.from({ length: 50_000 }, (_, i) => i % 10).join(',')}]`,
  deep: '{"x":'.repeat(99) + '{"n":1}' + '}'.repeat(99)
}

beforeAll(async () => {
  for (const [key, json] of Object.entries(documents)) expect(await seedDocument(rig, key, json)).toBe(true)
})

describe('any JSONPath keeps the contract', () => {
  it('answers matches, or 400 or 422, without a 5xx, a stall or a change to any key', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(documents)), jsonPath, async (key, path) => {
      const url = `/docs/${key}?${new URLSearchParams({ jsonpath: path })}`
      const { answer } = await runCase(rig, `GET ${url.slice(0, 300)}`, [], () => inject(rig, { method: 'GET', url }))
      if (answer.statusCode === 200) expect(JSON.parse(answer.body)).toBeInstanceOf(Array)
    }), propertyOptions(400))
  }, timeoutFor(400))
})
