import { describe, expect, inject, it } from 'vitest'
import { buildTestApp, put } from '../../helpers/app.js'
import { allPages, indexReady, query } from './helpers.js'

/** A bound of 5 matches per master, so that a few dozen documents pass it on every master of a cluster. */
const app = await buildTestApp({ maxClusterMatches: 5 })
const onCluster = 'clusterNodes' in inject('redis')

const valued = Array.from({ length: 60 }, (_, index) => [`bound:v${String(index).padStart(2, '0')}`, { total: (index * 37) % 60 - 0.5, kind: 'valued' }] as const)
const unvalued = [['bound:n1', { kind: 'none' }], ['bound:n2', { kind: 'none' }]] as const
const tied = Array.from({ length: 30 }, (_, index) => [`tied:t${index}`, { total: 7, kind: 'tied' }] as const)
for (const [key, value] of [...valued, ...unvalued, ...tied]) expect((await put(app, `/docs/${key}`, value)).statusCode).toBe(201)
const fields = [{ pointer: '/total', type: 'number', sortable: true }, { pointer: '/kind', type: 'tag' }]
await indexReady(app, 'bound', fields)
await indexReady(app, 'tied', fields)

describe('MAX_CLUSTER_MATCHES bounds what a master answers for the service to order, not what a numeric sort pages over', () => {
  it('a page sorted on a number walks any number of matches, each master answering its first rows', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const pages = await allPages(app, 'bound', { filter: {}, sort: [{ pointer: '/total', order }], limit: 7 })
      const byValue = [...valued].sort(([, a], [, b]) => order === 'asc' ? a.total - b.total : b.total - a.total).map(([key]) => key)
      expect(pages.flatMap((page) => page.items.map((item) => item.key))).toEqual([...byValue, 'bound:n1', 'bound:n2'])
    }
    const counted = await query(app, 'bound', { filter: { '/kind': 'valued' }, sort: [{ pointer: '/total' }], limit: 3 }, { prefer: 'count=exact' })
    expect(counted.json()).toMatchObject({ count: 60 })
  })

  it.runIf(onCluster)('on a cluster, is 422 past the bound for the matches it must gather: one sort value, or any order but a numeric sort', async () => {
    for (const [collection, body] of [['tied', { filter: {}, sort: [{ pointer: '/total' }], limit: 3 }], ['bound', { filter: { '/kind': 'valued' } }]] as const) {
      const refused = await query(app, collection, body)
      expect(refused.statusCode, refused.body).toBe(422)
      expect(refused.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_CLUSTER_MATCHES', max: 5 })
    }
  })

  it.skipIf(onCluster)('on one Redis, does not apply', async () => {
    const pages = await allPages(app, 'tied', { filter: {}, sort: [{ pointer: '/total' }], limit: 7 })
    expect(pages.flatMap((page) => page.items.map((item) => item.key))).toEqual(tied.map(([key]) => key).sort())
    expect((await query(app, 'bound', { filter: { '/kind': 'valued' }, limit: 100 })).json().items).toHaveLength(60)
  })
})
