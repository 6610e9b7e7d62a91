import { describe, expect, it } from 'vitest'
import { buildTestApp, put, remove } from '../../helpers/app.js'
import { allPages, indexReady, query, refusedForUnsearchable, shortQuery, type Page } from './helpers.js'
import { FIELDS, PROJECTABLE, random, randomDoc, randomFilter, randomSort, uniqueDocs, WIDE } from './random-queries.js'
import { comparedTags, matches, ordered, projected, type Doc } from './reference.js'

/*
 * Random documents, random filters, sorts and page sizes: every page the service answers is the matching
 * slice of what the reference evaluator (written from docs/queries.md) answers over the same documents, or
 * the query is refused for documents holding tag values RediSearch indexes in part, which it names.
 */

const app = await buildTestApp()

async function load (collection: string, docs: Doc[]) {
  for (const doc of docs) {
    const response = await put(app, `/docs/${encodeURIComponent(doc.key)}`, doc.value)
    expect(response.statusCode, response.body).toBeLessThan(300)
  }
  await indexReady(app, collection, FIELDS)
}

/** The tag fields a query's answer is decided by: those its filter compares, and its sort's. */
function decisive (filter: Record<string, unknown>, sort: { pointer: string } | undefined): Set<string> {
  const pointers = comparedTags(filter, FIELDS)
  if (sort?.pointer === '/s') pointers.add('/s')
  return pointers
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
    const docs = uniqueDocs(rng, collection, 160, WIDE)
    await load(collection, docs)
    let refused = 0
    for (let round = 0; round < 80; round++) {
      const filter = randomFilter(rng, WIDE)
      const sort = randomSort(rng)
      const limit = 1 + rng.int(12)
      const fields = rng.chance(0.3) ? Array.from({ length: 1 + rng.int(3) }, () => rng.pick(PROJECTABLE)) : undefined
      const type = sort?.pointer === '/n' ? 'number' : 'tag'
      const expected = ordered(docs.filter((doc) => matches(doc, filter, FIELDS)), sort, type).map((doc) => doc.key)
      const body = { filter, limit, ...(sort ? { sort: [sort] } : {}), ...(fields ? { fields } : {}) }
      const context = JSON.stringify(body)
      if (refusedForUnsearchable(await query(app, collection, body), docs, decisive(filter, sort), context)) {
        refused++
        continue
      }
      const pages = await allPages(app, collection, body)
      pages.forEach((page, index) => {
        expect(page.items.map((item) => item.key), `page ${index} of ${context}`).toEqual(expected.slice(index * limit, (index + 1) * limit))
      })
      expect(pages.flatMap((page) => page.items.map((item) => item.key)), context).toEqual(expected)
      for (const item of pages.flatMap((page) => page.items)) {
        const doc = docs.find((candidate) => candidate.key === item.key)!
        expect(item.value, `${item.key} of ${context}`).toEqual(fields ? projected(doc, fields) : doc.value)
      }
    }
    // Documents holding U+0000 or U+001F are among the generated ones, so some queries meet them; most do not.
    expect(refused).toBeGreaterThan(0)
    expect(refused).toBeLessThan(40)
  }, 120_000)

  it.each([5, 99])('in the short GET form, on every page of random filters without $or and $not (seed %i)', async (seed) => {
    const rng = random(seed)
    const collection = `gdiff${seed}`
    const docs = uniqueDocs(rng, collection, 120, WIDE)
    await load(collection, docs)
    let asked = 0
    for (let round = 0; round < 60; round++) {
      const filter = randomFilter(rng, WIDE)
      if (/"\$(or|not)"/.test(JSON.stringify(filter))) continue
      asked++
      const sort = randomSort(rng)
      const limit = 1 + rng.int(12)
      const expected = ordered(docs.filter((doc) => matches(doc, filter, FIELDS)), sort, sort?.pointer === '/n' ? 'number' : 'tag').map((doc) => doc.key)
      const parameters: Array<[string, string]> = [...shortParameters(filter), ['limit', String(limit)],
        ...(sort ? [['sort', `${sort.order === 'desc' ? '-' : ''}${sort.pointer}`] as [string, string]] : [])]
      const context = JSON.stringify(parameters)
      if (refusedForUnsearchable(await shortQuery(app, collection, parameters), docs, decisive(filter, sort), context)) continue
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
    const stable = uniqueDocs(rng, 'churn', 120, WIDE)
    await load('churn', stable)
    let writing = true
    const churn = (async () => {
      for (let round = 0; writing && round < 5000; round++) {
        const doc = randomDoc(rng, `churn:~temp${round % 40}`, WIDE)
        if (round % 3 === 2) await remove(app, `/docs/${encodeURIComponent(doc.key)}`)
        else await put(app, `/docs/${encodeURIComponent(doc.key)}`, doc.value)
      }
    })()
    try {
      for (let round = 0; round < 25; round++) {
        const filter = randomFilter(rng, WIDE)
        const sort = randomSort(rng)
        const limit = 1 + rng.int(6)
        const expected = ordered(stable.filter((doc) => matches(doc, filter, FIELDS)), sort, sort?.pointer === '/n' ? 'number' : 'tag').map((doc) => doc.key)
        const body = { filter, limit, ...(sort ? { sort: [sort] } : {}) }
        const context = JSON.stringify(body)
        // Any page may meet a document written meanwhile holding U+0000 or U+001F: such a refusal ends the round.
        const keys: string[] = []
        let cursor: string | null = null
        let refused = false
        do {
          const response = await query(app, 'churn', { ...body, ...(cursor ? { cursor } : {}) })
          refused = refusedForUnsearchable(response, stable, decisive(filter, sort), context, (key) => key.startsWith('churn:~temp'))
          if (refused) break
          expect(response.statusCode, `${context}: ${response.body}`).toBe(200)
          const page = response.json() as Page
          keys.push(...page.items.map((item) => item.key))
          cursor = page.cursor
        } while (cursor !== null)
        if (!refused) expect(keys.filter((key) => !key.startsWith('churn:~temp')), context).toEqual(expected)
      }
    } finally {
      writing = false
      await churn
    }
  }, 120_000)
})
