import { describe, expect, it } from 'vitest'
import { buildTestApp, put } from '../../helpers/app.js'
import { indexReady, query, shortQuery, type Page } from './helpers.js'

/*
 * RediSearch expands a prefix to at most MAXEXPANSIONS (200) distinct values per master, and then matches
 * only their documents without saying so in its reply. A `$prefix` past that bound is 422, never a partial
 * page or count; one within it is exact. On a cluster each master holds about a third of the values, so
 * the same filter may be within the bound there: then its answer is complete.
 */

const app = await buildTestApp()
const onCluster = process.env.TEST_REDIS === 'cluster'
const VALUES = 700

describe('a $prefix shared by more distinct values than RediSearch expands', () => {
  it('is refused with 422 naming MAXEXPANSIONS (or, within the bound, answered in full), in pages and in counts', async () => {
    const pending: Array<Promise<unknown>> = []
    for (let index = 0; index < VALUES; index++) {
      const id = String(index).padStart(3, '0')
      pending.push(put(app, `/docs/pfx:${id}`, { code: `pre${id}`, words: [`pre${id}`, 'all'] }))
      if (pending.length === 50) await Promise.all(pending.splice(0))
    }
    await Promise.all(pending)
    await indexReady(app, 'pfx', [{ pointer: '/code', type: 'tag', sortable: true }, { pointer: '/words', type: 'tag' }])
    for (const filter of [{ '/code': { $prefix: 'pre' } }, { '/words': { $prefix: 'pre' } }, { '/words': 'all', $not: { '/code': { $prefix: 'pre' } } },
      { $or: [{ '/code': { $prefix: 'pre' } }, { '/code': 'none' }] }]) {
      for (const body of [{ filter, limit: 100 }, { filter, limit: 0 }, { filter, limit: 10, sort: [{ pointer: '/code', order: 'desc' }] }]) {
        const response = await query(app, 'pfx', body, { prefer: 'count=exact' })
        if (response.statusCode === 200 && onCluster) {
          expect((response.json() as Page).count, JSON.stringify(body)).toBe('$not' in filter ? 0 : VALUES)
          continue
        }
        expect(response.statusCode, `${JSON.stringify(body)}: ${response.body}`).toBe(422)
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
        expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAXEXPANSIONS', max: 200 })
      }
    }
    const grouped = await app.inject({ method: 'POST', url: '/collections/pfx/aggregate',
      payload: { filter: { '/code': { $prefix: 'pre' } }, metrics: { n: { $count: {} } } } })
    expect(grouped.statusCode, grouped.body).toBe(422)
    expect(grouped.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAXEXPANSIONS' })
    const short = await shortQuery(app, 'pfx', [['/code', 'prefix:pre']])
    if (!onCluster) expect(short.statusCode).toBe(422)
  }, 60_000)

  it('is answered exactly when the prefix is shared by fewer', async () => {
    const response = await query(app, 'pfx', { filter: { '/code': { $prefix: 'pre1' } }, limit: 100 }, { prefer: 'count=exact' })
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json() as Page
    expect(page.count).toBe(100)
    expect(page.items).toHaveLength(100)
  })
})
