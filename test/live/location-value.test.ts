import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatPointer } from '../../src/documents/pointer.js'
import type { Change } from '../../src/live/changes.js'
import { LocationValue, translate } from '../../src/live/location-value.js'

/** Member names of every class: empty, pointer escapes, punctuation, non-ASCII, and the prototype's own. */
const name = fc.constantFrom('', 'a', 'b', '~', '/', '~1', 'a b', '"', 'ü', '日本', '__proto__', 'constructor', '0')
const leaf = fc.oneof(fc.constantFrom(null, true, false, 0, -1.5, '', 'é'), fc.string({ maxLength: 8 }), fc.integer())
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.array(fc.tuple(name, tie('value')), { maxLength: 4 }).map((members) => JSON.parse(`{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`) as unknown)
})).value

/** The pointers of a value's places below its root, with whether each is an array element. */
function places (value: unknown, tokens: string[] = []): Array<{ tokens: string[], element: boolean }> {
  if (Array.isArray(value)) return value.flatMap((item, index) => [{ tokens: [...tokens, String(index)], element: true }, ...places(item, [...tokens, String(index)])])
  if (typeof value !== 'object' || value === null) return []
  return Object.keys(value).flatMap((key) => [{ tokens: [...tokens, key], element: false }, ...places((value as Record<string, unknown>)[key], [...tokens, key])])
}

/** What JSON.parse and assignment through defineProperty make of a value with a change: the model. */
function applied (value: unknown, { op, path, value: next }: Change): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown
  const tokens = path.split('/').slice(1).map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
  let parent = copy as Record<string, unknown>
  for (const token of tokens.slice(0, -1)) parent = parent[token] as Record<string, unknown>
  const last = tokens.at(-1)!
  if (op === 'remove') Reflect.deleteProperty(parent, last)
  else Object.defineProperty(parent, last, { value: next, enumerable: true, writable: true, configurable: true })
  return copy
}

describe('a location\'s value, patched', () => {
  it('is what the patch makes of it, its text\'s length known, the value before untouched, and unchanged when the patch writes what is there', () => {
    fc.assert(fc.property(json.filter((value) => places(value).length > 0), fc.nat(), json, fc.boolean(), fc.boolean(), (value, pick, next, removing, same) => {
      const spots = places(value)
      const { tokens, element } = spots[pick % spots.length]!
      const path = formatPointer(tokens)
      const old = tokens.reduce<unknown>((at, token) => (at as Record<string, unknown>)[token], value)
      // Elements are replaced, never removed one by one (an array that loses one is replaced whole).
      const change: Change = removing && !element ? { op: 'remove', path } : { op: 'replace', path, value: same ? old : next }
      const before = LocationValue.read(JSON.stringify(value))
      const text = before.text()
      const result = before.patched([change])!
      const expected = JSON.stringify(applied(value, change))
      expect(result.after.text()).toBe(expected)
      expect(result.after.length).toBe(expected.length)
      expect(result.changed).toBe(expected !== text)
      expect(before.text()).toBe(text)
      expect(JSON.stringify(before.value())).toBe(text)
    }), { numRuns: 2000 })
  })

  it('adds a member that was not there, whatever its name', () => {
    for (const key of ['__proto__', '', '~', 'new']) {
      const before = LocationValue.read('{"a":1}')
      const { after, changed } = before.patched([{ op: 'add', path: formatPointer([key]), value: { n: 1 } }])!
      expect(changed).toBe(true)
      expect(after.text()).toBe(`{"a":1,${JSON.stringify(key)}:{"n":1}}`)
      expect(after.length).toBe(after.text()!.length)
      expect(Object.getPrototypeOf(after.value())).toBe(Object.prototype)
    }
  })

  it('loses track (undefined) when the patch does not fit it: no container on the way, an element removed', () => {
    const before = LocationValue.read('{"a":[1,2],"s":"x"}')
    expect(before.patched([{ op: 'replace', path: '/b/c', value: 1 }])).toBeUndefined()
    expect(before.patched([{ op: 'replace', path: '/s/c', value: 1 }])).toBeUndefined()
    expect(before.patched([{ op: 'replace', path: '/a/2', value: 1 }])).toBeUndefined()
    expect(before.patched([{ op: 'remove', path: '/a/0' }])).toBeUndefined()
  })
})

describe('an entry at a location of a value of any size', () => {
  const large = { profile: { stats: { n: 1 } }, x: 'é'.repeat(20_000) }

  it('sends nothing for a patch that writes what is there, and the patch for one that changes it', () => {
    const before = LocationValue.of(large)
    const same = translate([], [{ op: 'replace', path: '/profile/stats/n', value: 1 }], undefined, before)
    expect(same.event).toEqual({ kind: 'none' })
    expect(same.after).toBe(before)
    const other = translate([], [{ op: 'replace', path: '/profile/stats/n', value: 2 }], undefined, before)
    expect(other.event).toEqual({ kind: 'patch', patch: [{ op: 'replace', path: '/profile/stats/n', value: 2 }] })
    expect(other.after!.text()).toBe(JSON.stringify({ ...large, profile: { stats: { n: 2 } } }))
  })

  it('sends the value instead of a patch longer than it', () => {
    const rewrites: Change[] = Array.from({ length: 20 }, (_, index) => ({ op: 'replace', path: '/n', value: index }))
    expect(translate([], rewrites, undefined, LocationValue.of({ n: 0 })).event).toEqual({ kind: 'put', value: { n: 19 } })
  })
})
