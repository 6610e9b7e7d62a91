import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, bearer, buildGuardedApp, tokenFor } from '../../access/guarded-app.js'
import { get, put } from '../../helpers/app.js'
import { eventually } from '../../helpers/local-redis.js'
import { INDEX_READY_MS, query, refusedForUnsearchable, type Page } from './helpers.js'
import { FIELDS, random, randomFilter, randomSort, uniqueDocs, WIDE } from './random-queries.js'
import { comparedTags, matches, ordered } from './reference.js'

/*
 * The differential test through a token that may read only some keys of the collection: every page and
 * count is the reference's over those keys alone, on one Redis and on a cluster; a refusal for documents
 * holding tag values RediSearch indexes in part names readable ones only.
 */

const app = await buildGuardedApp()
const admin = bearer(ADMIN_TOKEN)

describe('queries through read scopes agree with the reference evaluator over the readable documents', () => {
  it.each([31, 4242])('on every page and count of random filters, sorts and page sizes (seed %i)', async (seed) => {
    const rng = random(seed)
    const collection = `sdiff${seed}`
    const docs = uniqueDocs(rng, collection, 150, WIDE)
    for (const doc of docs) expect((await put(app, `/docs/${encodeURIComponent(doc.key)}`, doc.value, admin)).statusCode).toBeLessThan(300)
    expect([200, 202]).toContain((await put(app, `/collections/${collection}/index`, { fields: FIELDS }, admin)).statusCode)
    await eventually(async () => (await get(app, `/collections/${collection}/index`, admin)).json().state === 'ready', INDEX_READY_MS)
    // Prefixes with characters RediSearch's expressions treat specially, and one that stops inside a key part.
    const prefixes = ['a', '日', '\\', '"q', '{x'].map((part) => `${collection}:${part}`)
    const { token } = await tokenFor(app, prefixes.map((prefix) => ({ prefix, rights: ['read'] })))
    const readable = docs.filter((doc) => prefixes.some((prefix) => doc.key.startsWith(prefix)))
    expect(readable.length).toBeGreaterThan(10)
    expect(readable.length).toBeLessThan(docs.length * 0.75)
    for (let round = 0; round < 30; round++) {
      const filter = randomFilter(rng, WIDE)
      const sort = randomSort(rng)
      const limit = 1 + rng.int(8)
      const expected = ordered(readable.filter((doc) => matches(doc, filter, FIELDS)), sort, sort?.pointer === '/n' ? 'number' : 'tag').map((doc) => doc.key)
      const body = { filter, limit, ...(sort ? { sort: [sort] } : {}) }
      const pointers = comparedTags(filter, FIELDS)
      if (sort?.pointer === '/s') pointers.add('/s')
      if (refusedForUnsearchable(await query(app, collection, body, bearer(token)), readable, pointers, JSON.stringify(body))) continue
      const keys: string[] = []
      let cursor: string | null = null
      do {
        const response = await query(app, collection, { ...body, ...(cursor ? { cursor } : {}) }, { ...bearer(token), prefer: 'count=exact' })
        expect(response.statusCode, response.body).toBe(200)
        const page = response.json() as Page
        expect(page.count, JSON.stringify(body)).toBe(expected.length)
        expect(page.items.map((item) => item.key), `page at ${keys.length} of ${JSON.stringify(body)}`).toEqual(expected.slice(keys.length, keys.length + limit))
        keys.push(...page.items.map((item) => item.key))
        cursor = page.cursor
      } while (cursor !== null && keys.length <= docs.length)
      expect(keys, JSON.stringify(body)).toEqual(expected)
    }
  }, 120_000)
})
