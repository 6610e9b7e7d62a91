import { describe, expect, it } from 'vitest'
import { buildTestApp, put } from '../../helpers/app.js'
import { allPages, indexReady, query, type Page } from './helpers.js'
import { FIELDS, missingOrNeither, negationsInUnion, random, randomSort, uniqueDocs } from './random-queries.js'
import { matches, ordered, type Doc } from './reference.js'

/*
 * Filters RediSearch 2.10 answers wrongly when written as they are said: an intersection holding a negation,
 * in a union, in an intersection, as in tag AND ($exists: false OR (NOT a AND NOT b)). Every page and count
 * is the reference evaluator's.
 */

const app = await buildTestApp()

async function agrees (collection: string, docs: Doc[], filter: Record<string, unknown>, sort?: { pointer: string, order: 'asc' | 'desc' }, limit = 10) {
  const expected = ordered(docs.filter((doc) => matches(doc, filter, FIELDS)), sort, sort?.pointer === '/n' ? 'number' : 'tag').map((doc) => doc.key)
  const body = { filter, limit, ...(sort ? { sort: [sort] } : {}) }
  const keys = (await allPages(app, collection, body)).flatMap((page) => page.items.map((item) => item.key))
  expect(keys, JSON.stringify(body)).toEqual(expected)
  const counted = await query(app, collection, { filter, limit: 0 }, { prefer: 'count=exact' })
  expect((counted.json() as Page).count, JSON.stringify(filter)).toBe(expected.length)
}

describe('a negation in an intersection, in a union, in an intersection', () => {
  // RediSearch numbers documents as they are indexed: with the index declared first, in the order written.
  // It lost the document right after one that the negation excluded.
  const fields = ['/t', '/f', '/a', '/b', '/c'].map((pointer) => ({ pointer, type: 'tag' }))
  const specs = fields.map(({ pointer }) => ({ pointer, type: 'tag' as const }))

  async function ordered (collection: string, values: Array<Record<string, unknown>>): Promise<Doc[]> {
    await indexReady(app, collection, fields)
    const docs = values.map((value, index) => ({ key: `${collection}:${index}`, value }))
    for (const doc of docs) expect((await put(app, `/docs/${doc.key}`, doc.value)).statusCode).toBeLessThan(300)
    return docs
  }

  async function keysOf (collection: string, filter: Record<string, unknown>): Promise<string[]> {
    const response = await query(app, collection, { filter, limit: 100 }, { prefer: 'count=exact' })
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json() as Page
    expect(page.count).toBe(page.items.length)
    return page.items.map((item) => item.key)
  }

  it('answers tag AND ($exists: false OR (NOT a AND NOT b)), the shape the differential test found', async () => {
    const docs = await ordered('shape1', [{ t: 'x', f: 'x', b: 'x' }, { t: 'x', f: 'x' }, { t: 'x', f: 'x' }, { a: 'x', b: 'x' }, { t: 'x' }, { f: 'x' }])
    const filter = { '/t': 'x', $or: [{ '/f': { $exists: false } }, { $not: { '/a': 'x' }, '/b': { $ne: 'x' } }] }
    expect(await keysOf('shape1', filter)).toEqual(['shape1:1', 'shape1:2', 'shape1:4'])
    expect(docs.filter((doc) => matches(doc, filter, specs)).map((doc) => doc.key)).toEqual(['shape1:1', 'shape1:2', 'shape1:4'])
  })

  it('answers A AND (B OR (C AND NOT D))', async () => {
    await ordered('shape2', [{ a: 'x', c: 'x', f: 'x' }, { a: 'x', c: 'x' }, { b: 'x', c: 'x' }, { a: 'x', c: 'x' }, { a: 'x', b: 'x' }])
    expect(await keysOf('shape2', { '/a': 'x', $or: [{ '/b': 'x' }, { '/c': 'x', $not: { '/f': 'x' } }] })).toEqual(['shape2:1', 'shape2:3', 'shape2:4'])
  })

  it('answers A AND NOT ((B AND NOT C) OR D)', async () => {
    await ordered('shape3', [{ t: 'x', b: 'x', c: 'x' }, { t: 'x', b: 'x' }, { t: 'x' }, { t: 'x', b: 'x', c: 'x' }])
    expect(await keysOf('shape3', { '/t': 'x', $not: { $or: [{ '/b': 'x', '/c': { $ne: 'x' } }, { '/a': 'x' }] } })).toEqual(['shape3:0', 'shape3:2', 'shape3:3'])
  })
})

describe('an absent field in a union with negations', () => {
  const rng = random(1616)
  const docs = uniqueDocs(rng, 'miss', 200)

  it('answers the filter the differential test found wrong', async () => {
    for (const doc of docs) expect((await put(app, `/docs/${encodeURIComponent(doc.key)}`, doc.value)).statusCode).toBeLessThan(300)
    await indexReady(app, 'miss', FIELDS)
    const found = { '/tags': { $exists: false }, $or: [{ '/b': { $exists: false } }, { $and: [{ $not: { '/s': { $prefix: '@a' } } }, { $not: { '/w x': { $exists: false } } }] }] }
    for (const sort of [undefined, { pointer: '/s', order: 'desc' as const }, { pointer: '/n', order: 'asc' as const }]) await agrees('miss', docs, found, sort)
  }, 60_000)

  it('answers every random filter of that shape, on every page and in its count', async () => {
    for (let round = 0; round < 40; round++) await agrees('miss', docs, missingOrNeither(rng), randomSort(rng), 1 + rng.int(12))
  }, 120_000)

  it('answers every random filter of the wider family (A AND (B OR (C AND NOT D)), A AND NOT ((B AND NOT C) OR D), ...)', async () => {
    for (let round = 0; round < 60; round++) await agrees('miss', docs, negationsInUnion(rng), randomSort(rng), 1 + rng.int(12))
  }, 120_000)
})
