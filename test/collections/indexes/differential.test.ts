import { describe, expect, it } from 'vitest'
import { buildTestApp, put, remove } from '../../helpers/app.js'
import { allPages, indexReady, shortQuery, type Page } from './helpers.js'
import { matches, ordered, type Doc, type FieldSpec } from './reference.js'

/*
 * Random documents, random filters, sorts and page sizes: every page the service answers is the matching
 * slice of what the reference evaluator (written from the README) answers over the same documents.
 */

const app = await buildTestApp()

/** A small seeded generator, so that a failure can be replayed from its seed. */
function random (seed: number) {
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

const FIELDS: FieldSpec[] = [
  { pointer: '/s', type: 'tag', sortable: true },
  { pointer: '/n', type: 'number', sortable: true },
  { pointer: '/tags', type: 'tag' },
  { pointer: '/b', type: 'boolean' },
  { pointer: '/w x', type: 'number' }
]

function randomDoc (rng: ReturnType<typeof random>, key: string): Doc {
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

function randomFilter (rng: ReturnType<typeof random>): Record<string, unknown> {
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

function randomSort (rng: ReturnType<typeof random>) {
  const choice = rng.int(5)
  if (choice === 0) return undefined
  return { pointer: choice < 3 ? '/s' : '/n', order: (choice % 2 === 0 ? 'asc' : 'desc') as 'asc' | 'desc' }
}

async function load (collection: string, docs: Doc[]) {
  for (const doc of docs) {
    const response = await put(app, `/docs/${encodeURIComponent(doc.key)}`, doc.value)
    expect(response.statusCode, response.body).toBeLessThan(300)
  }
  await indexReady(app, collection, FIELDS)
}

function uniqueDocs (rng: ReturnType<typeof random>, collection: string, count: number): Doc[] {
  const keys = new Set<string>()
  while (keys.size < count) keys.add(`${collection}:${rng.pick(KEY_PARTS)}${rng.pick(KEY_PARTS)}${rng.int(50)}`)
  return [...keys].map((key) => randomDoc(rng, key))
}

/** A condition as the short GET form spells it: `operator:value`, lists with `\\` and `\,` escaped. */
function spelled (operator: string, operand: unknown): string {
  const list = (values: unknown[]) => values.map((value) => String(value).replaceAll('\\', '\\\\').replaceAll(',', '\\,')).join(',')
  return `${operator.slice(1)}:${Array.isArray(operand) ? list(operand) : String(operand)}`
}

/** The query string of a filter made of conditions and `$and` lists of them. */
function shortParameters (filter: Record<string, unknown>): Array<[string, string]> {
  return Object.entries(filter).flatMap(([member, operand]): Array<[string, string]> => member === '$and'
    ? (operand as Array<Record<string, unknown>>).flatMap(shortParameters)
    : Object.entries(operand as Record<string, unknown>).map(([operator, value]) => [member, spelled(operator, value)]))
}

describe('queries agree with the reference evaluator', () => {
  it.each([21, 7, 1234])('on every page of random filters, sorts and page sizes (seed %i)', async (seed) => {
    const rng = random(seed)
    const collection = `diff${seed}`
    const docs = uniqueDocs(rng, collection, 160)
    await load(collection, docs)
    for (let round = 0; round < 80; round++) {
      const filter = randomFilter(rng)
      const sort = randomSort(rng)
      const limit = 1 + rng.int(12)
      const type = sort?.pointer === '/n' ? 'number' : 'tag'
      const expected = ordered(docs.filter((doc) => matches(doc, filter, FIELDS)), sort, type).map((doc) => doc.key)
      const body = { filter, limit, ...(sort ? { sort: [sort] } : {}) }
      const pages = await allPages(app, collection, body)
      const context = JSON.stringify(body)
      pages.forEach((page, index) => {
        expect(page.items.map((item) => item.key), `page ${index} of ${context}`).toEqual(expected.slice(index * limit, (index + 1) * limit))
      })
      expect(pages.flatMap((page) => page.items.map((item) => item.key)), context).toEqual(expected)
      for (const item of pages.flatMap((page) => page.items)) expect(item.value).toEqual(docs.find((doc) => doc.key === item.key)!.value)
    }
  }, 120_000)

  it.each([5, 99])('in the short GET form, on every page of random filters without $or and $not (seed %i)', async (seed) => {
    const rng = random(seed)
    const collection = `gdiff${seed}`
    const docs = uniqueDocs(rng, collection, 120)
    await load(collection, docs)
    let asked = 0
    for (let round = 0; round < 60; round++) {
      const filter = randomFilter(rng)
      if ('$or' in filter || '$not' in filter) continue
      asked++
      const sort = randomSort(rng)
      const limit = 1 + rng.int(12)
      const expected = ordered(docs.filter((doc) => matches(doc, filter, FIELDS)), sort, sort?.pointer === '/n' ? 'number' : 'tag').map((doc) => doc.key)
      const parameters: Array<[string, string]> = [...shortParameters(filter), ['limit', String(limit)],
        ...(sort ? [['sort', `${sort.order === 'desc' ? '-' : ''}${sort.pointer}`] as [string, string]] : [])]
      const context = JSON.stringify(parameters)
      const keys: string[] = []
      let cursor: string | null = null
      do {
        const response = await shortQuery(app, collection, [...parameters, ...(cursor ? [['cursor', cursor] as [string, string]] : [])])
        expect(response.statusCode, `${context}: ${response.body}`).toBe(200)
        const page = response.json() as Page
        expect(page.items.map((item) => item.key), `page at ${keys.length} of ${context}`).toEqual(expected.slice(keys.length, keys.length + limit))
        keys.push(...page.items.map((item) => item.key))
        cursor = page.cursor
      } while (cursor !== null && keys.length <= docs.length)
      expect(keys, context).toEqual(expected)
    }
    expect(asked).toBeGreaterThan(20)
  }, 120_000)

  it('under concurrent writes: documents written throughout appear once each, in order, none skipped', async () => {
    const rng = random(2121)
    const stable = uniqueDocs(rng, 'churn', 120)
    await load('churn', stable)
    let writing = true
    const churn = (async () => {
      for (let round = 0; writing && round < 5000; round++) {
        const doc = randomDoc(rng, `churn:~temp${round % 40}`)
        if (round % 3 === 2) await remove(app, `/docs/${encodeURIComponent(doc.key)}`)
        else await put(app, `/docs/${encodeURIComponent(doc.key)}`, doc.value)
      }
    })()
    try {
      for (let round = 0; round < 25; round++) {
        const filter = randomFilter(rng)
        const sort = randomSort(rng)
        const limit = 1 + rng.int(6)
        const expected = ordered(stable.filter((doc) => matches(doc, filter, FIELDS)), sort, sort?.pointer === '/n' ? 'number' : 'tag').map((doc) => doc.key)
        const pages = await allPages(app, 'churn', { filter, limit, ...(sort ? { sort: [sort] } : {}) })
        const seen = pages.flatMap((page) => page.items.map((item) => item.key)).filter((key) => !key.startsWith('churn:~temp'))
        expect(seen, JSON.stringify({ filter, sort, limit })).toEqual(expected)
      }
    } finally {
      writing = false
      await churn
    }
  }, 120_000)
})
