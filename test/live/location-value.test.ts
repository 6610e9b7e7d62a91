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
  it('is what each patch makes of it, over many (the changes gathered, then applied), every value before untouched, and unchanged by a patch writing what is there', () => {
    const step = fc.record({ pick: fc.nat(), next: json, removing: fc.boolean(), same: fc.boolean(), adding: fc.boolean(), member: name })
    fc.assert(fc.property(json.filter((value) => places(value).length > 0), fc.array(step, { minLength: 1, maxLength: 400, size: 'max' }), (start, steps) => {
      let model: unknown = start
      let value = LocationValue.read(JSON.stringify(start))
      const seen: Array<[LocationValue, string]> = []
      for (const { pick, next, removing, same, adding, member } of steps) {
        const spots = places(model)
        if (spots.length === 0) break
        const { tokens, element } = spots[pick % spots.length]!
        const path = formatPointer(tokens)
        const old = tokens.reduce<unknown>((at, token) => (at as Record<string, unknown>)[token], model)
        // Elements are replaced, never removed one by one (an array that loses one is replaced whole).
        const object = typeof old === 'object' && old !== null && !Array.isArray(old)
        // Members added to an object (any name, whether it had members or not), removed, or replaced.
        const change: Change = adding && object
          ? { op: 'add', path: formatPointer([...tokens, member]), value: next }
          : removing && !element ? { op: 'remove', path } : { op: 'replace', path, value: same ? old : next }
        const text = JSON.stringify(model)
        const result = value.patched([change])!
        model = applied(model, change)
        const expected = JSON.stringify(model)
        expect(result.changed).toBe(expected !== text)
        seen.push([value, text])
        value = result.after
        expect(value.length).toBe(expected.length)
        expect(value.text()).toBe(expected)
      }
      for (const [before, text] of seen) expect(before.text()).toBe(text)
    }), { numRuns: 60 })
  })

  it('applies its changes when it has gathered many, inside places written before and whole places after parts of them', () => {
    let value = LocationValue.read('{"a":{"b":{"n":0}},"list":[0,0,0]}')
    const model = { a: { b: { n: 0 } as Record<string, unknown> }, list: [0, 0, 0] }
    for (let step = 1; step <= 1000; step++) {
      const change: Change = step % 7 === 0
        ? { op: 'replace', path: '/a/b', value: { n: step, m: { deep: step } } }
        : step % 3 === 0 ? { op: 'replace', path: `/list/${step % 3}`, value: step } : { op: 'add', path: `/a/b/k${step % 5}`, value: [step] }
      value = value.patched([change])!.after
      if (change.path === '/a/b') model.a.b = change.value as Record<string, unknown>
      else if (change.path.startsWith('/list/')) model.list[step % 3] = step
      else model.a.b[`k${step % 5}`] = [step]
    }
    expect(value.text()).toBe(JSON.stringify(model))
    expect(value.length).toBe(JSON.stringify(model).length)
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

  it('loses track (undefined) when the patch does not fit it: no container on the way, an element added or removed', () => {
    const before = LocationValue.read('{"a":[1,2],"s":"x"}')
    expect(before.patched([{ op: 'replace', path: '/b/c', value: 1 }])).toBeUndefined()
    expect(before.patched([{ op: 'replace', path: '/s/c', value: 1 }])).toBeUndefined()
    expect(before.patched([{ op: 'replace', path: '/a/2', value: 1 }])).toBeUndefined()
    expect(before.patched([{ op: 'remove', path: '/a/0' }])).toBeUndefined()
    // The same after changes gathered on the way.
    const changed = before.patched([{ op: 'replace', path: '/a/0', value: { n: 1 } }, { op: 'remove', path: '/s' }])!.after
    expect(changed.patched([{ op: 'replace', path: '/s/c', value: 1 }])).toBeUndefined()
    expect(changed.patched([{ op: 'replace', path: '/a/2', value: 1 }])).toBeUndefined()
    expect(changed.patched([{ op: 'replace', path: '/a/0/n/m', value: 1 }])).toBeUndefined()
    expect(changed.patched([{ op: 'replace', path: '/a/0/m', value: 1 }])!.after.text()).toBe('{"a":[{"n":1,"m":1},2]}')
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
    const other: Change[] = [{ op: 'add', path: '/m', value: 'x'.repeat(50) }]
    expect(translate([], other, undefined, LocationValue.of({})).event).toEqual({ kind: 'put', value: { m: 'x'.repeat(50) } })
  })
})
