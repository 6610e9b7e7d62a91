import { describe, expect, it } from 'vitest'
import { connect, JsondocsError, type QueryItem } from '../../client/src/index.js'
import { INDEX_READY_MS } from '../collections/indexes/helpers.js'
import { eventually, listeningApp } from './service.js'

const { baseUrl } = await listeningApp()
const db = connect({ baseUrl })

async function orders (count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, n) =>
    db.doc(`orders:${String(n).padStart(3, '0')}`).put({ status: n % 3 === 0 ? 'open' : 'paid', total: n, title: `order ${n}` })))
  const response = await fetch(`${baseUrl}/collections/orders/index`, {
    method: 'PUT', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: [{ pointer: '/status', type: 'tag' }, { pointer: '/total', type: 'number', sortable: true }] })
  })
  expect([200, 202]).toContain(response.status)
  await eventually(async () => (await (await fetch(`${baseUrl}/collections/orders/index`)).json() as { state: string }).state === 'ready', 'index ready', INDEX_READY_MS)
}

describe('collections', () => {
  it('queries every page, following the cursors, in the query\'s order', async () => {
    await orders(47)
    const found: QueryItem[] = []
    for await (const item of db.collection('orders').query({ filter: { '/total': { $gte: 2 } }, sort: [{ pointer: '/total', order: 'desc' }], fields: ['/total'], limit: 10 })) {
      found.push(item)
    }
    expect(found.map((item) => item.value)).toEqual(Array.from({ length: 45 }, (_, n) => ({ '/total': 46 - n })))
    expect(found.every((item) => /^"\d+"$/.test(item.etag))).toBe(true)

    const open: string[] = []
    for await (const item of db.collection('orders').query({ filter: { '/status': 'open' }, limit: 4 })) open.push(item.key)
    expect(open).toEqual(Array.from({ length: 16 }, (_, n) => `orders:${String(n * 3).padStart(3, '0')}`))
  })

  it('aggregates the matches in groups', async () => {
    const answer = await db.collection('orders').aggregate({
      groupBy: ['/status'], metrics: { n: { $count: {} }, total: { $sum: '/total' }, hi: { $max: '/total' } }, sort: [{ metric: 'n', order: 'desc' }]
    })
    expect(answer).toEqual({
      groups: [
        { key: { '/status': 'paid' }, n: 31, total: 721, hi: 46 },
        { key: { '/status': 'open' }, n: 16, total: 360, hi: 45 }
      ],
      truncated: false
    })
  })

  it('throws a refused query as its problem', async () => {
    const refused = db.collection('orders').query({ filter: { '/nowhere': 1 } })[Symbol.asyncIterator]().next()
    await expect(refused).rejects.toBeInstanceOf(JsondocsError)
    await expect(refused).rejects.toMatchObject({ status: 400 })
    await expect(db.collection('nothing').aggregate({})).rejects.toMatchObject({ status: 404 })
  })
})
