import type { Doc, FieldSpec } from './reference.js'

/* Random documents, filters and sorts over one index's fields, for the differential tests. */

/** A small seeded generator, so that a failure can be replayed from its seed. */
export function random (seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  return { next, pick, chance: (p: number) => next() < p, int: (n: number) => Math.floor(next() * n) }
}

/** Strings with every character RediSearch's query syntax treats specially, spaces, case and unicode. */
const STRINGS = ['open', 'Open', 'OPEN', 'paid', 'a b', ' padded ', 'x-y', '-neg', 'a@b', '{c}', 'p|q', 'st*r', 'q"t', 'b\\s',
  "it's", '$p0', 'a:b', '(x)', '~t', 'a.b', 'ünï', '日本', 'emoji 😀', '', '[x]', 'o;k', '%p', '#h', 'a,b', 'ab', 'abc', '-', '*', '\t tab', 'b\\-c', 'q\\"', '\\\\ x', '%s']
const NUMBERS = [0, 1, -1, 1.5, -2.25, 10, 10, 100, 1e21, -1e-7, 0.1 + 0.2, 12345678901234568, 3, 3, 3]
const KEY_PARTS = ['a', 'B', 'b', 'é', '日', '"q"', '\\', '{x}', ' s', '*', '10', '9', 'zz', '\\-', '\\"', "'", '%s']

export const FIELDS: FieldSpec[] = [
  { pointer: '/s', type: 'tag', sortable: true },
  { pointer: '/n', type: 'number', sortable: true },
  { pointer: '/tags', type: 'tag' },
  { pointer: '/b', type: 'boolean' },
  { pointer: '/w x', type: 'number' }
]

export function randomDoc (rng: ReturnType<typeof random>, key: string): Doc {
  const value: Record<string, unknown> = {}
  if (rng.chance(0.85)) value.s = rng.chance(0.05) ? null : rng.pick(STRINGS)
  if (rng.chance(0.85)) value.n = rng.chance(0.05) ? null : rng.pick(NUMBERS)
  if (rng.chance(0.7)) value.tags = Array.from({ length: rng.int(4) }, () => rng.pick(STRINGS))
  if (rng.chance(0.8)) value.b = rng.chance(0.5)
  if (rng.chance(0.5)) value['w x'] = rng.chance(0.5) ? rng.pick(NUMBERS) : Array.from({ length: 1 + rng.int(3) }, () => rng.pick(NUMBERS))
  return { key, value }
}

function randomCondition (rng: ReturnType<typeof random>): Record<string, unknown> {
  const field = rng.pick(FIELDS)
  const value = () => field.type === 'number' ? rng.pick(NUMBERS) : field.type === 'boolean' ? rng.chance(0.5) : rng.pick(STRINGS.filter((s) => s.trim() !== ''))
  const operators = field.type === 'number'
    ? ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists']
    : field.type === 'boolean' ? ['$eq', '$ne', '$in', '$nin', '$exists'] : ['$eq', '$ne', '$in', '$nin', '$exists', '$prefix']
  const operator = rng.pick(operators)
  const operand = operator === '$exists'
    ? rng.chance(0.5)
    : operator === '$in' || operator === '$nin'
      ? Array.from({ length: 1 + rng.int(3) }, value)
      : operator === '$prefix' ? rng.pick(['ab', 'op', 'Op', ' a b', '日本', '{c', 'q"', 'b\\', '-n']) : value()
  return { [field.pointer]: { [operator]: operand } }
}

function isPositive (filter: Record<string, unknown>): boolean {
  return Object.entries(filter).some(([member, operand]) => {
    if (member === '$and') return (operand as Array<Record<string, unknown>>).some(isPositive)
    if (member === '$or') return (operand as Array<Record<string, unknown>>).every(isPositive)
    if (member === '$not') return false
    const [[operator, value]] = Object.entries(operand as Record<string, unknown>) as [[string, unknown]]
    return !['$ne', '$nin'].includes(operator) && !(operator === '$exists' && value === true)
  })
}

export function randomFilter (rng: ReturnType<typeof random>): Record<string, unknown> {
  for (;;) {
    const shape = rng.int(5)
    const filter = shape === 0
      ? {}
      : shape === 1
        ? randomCondition(rng)
        : shape === 2
          ? { $and: [randomCondition(rng), randomCondition(rng)] }
          : shape === 3
            ? { $or: [randomCondition(rng), randomCondition(rng)] }
            : { ...randomCondition(rng), $not: randomCondition(rng) }
    if (Object.keys(filter).length === 0 || isPositive(filter)) return filter
  }
}

export function randomSort (rng: ReturnType<typeof random>) {
  const choice = rng.int(5)
  if (choice === 0) return undefined
  return { pointer: choice < 3 ? '/s' : '/n', order: (choice % 2 === 0 ? 'asc' : 'desc') as 'asc' | 'desc' }
}

export function uniqueDocs (rng: ReturnType<typeof random>, collection: string, count: number): Doc[] {
  const keys = new Set<string>()
  while (keys.size < count) keys.add(`${collection}:${rng.pick(KEY_PARTS)}${rng.pick(KEY_PARTS)}${rng.int(50)}`)
  return [...keys].map((key) => randomDoc(rng, key))
}

