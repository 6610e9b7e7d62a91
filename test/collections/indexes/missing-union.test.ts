import { describe, expect, it } from 'vitest'
import { buildTestApp, put } from '../../helpers/app.js'
import { allPages, indexReady, query, type Page } from './helpers.js'
import { FIELDS, missingOrNeither, random, randomSort, uniqueDocs } from './random-queries.js'
import { matches, ordered, type Doc } from './reference.js'

/*
 * Filters of the shape tag AND ($exists: false OR (NOT a AND NOT b)), whose `ismissing()` inside a union
 * RediSearch 2.10 answered wrongly: every page and count is the reference evaluator's.
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
    for (let round = 0; round < 60; round++) await agrees('miss', docs, missingOrNeither(rng), randomSort(rng), 1 + rng.int(12))
  }, 120_000)
})
