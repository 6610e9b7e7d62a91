import { describe, expect, it } from 'vitest'
import { buildTestApp, put, remove } from '../../helpers/app.js'
import { indexReady, query } from './helpers.js'

/*
 * Each instance remembers a ready index for a moment rather than read its record for every query: two apps on
 * one namespace, one changing the index while the other queries, show that nothing stale is ever answered.
 */

const changing = await buildTestApp()
const querying = await buildTestApp({ keyPrefix: changing.keyPrefix })

async function remembered (collection: string, body: unknown): Promise<void> {
  // Two queries: the first reads the index's record, the second is answered from the memo.
  for (let round = 0; round < 2; round++) expect((await query(querying, collection, body)).statusCode).toBe(200)
}

describe('an index another instance remembers', () => {
  it('answers 404 there as soon as it is deleted', async () => {
    await put(changing, '/docs/forgotten:1', { s: 'x' })
    await indexReady(changing, 'forgotten', [{ pointer: '/s', type: 'tag' }])
    await remembered('forgotten', { filter: { '/s': 'x' } })
    expect((await remove(changing, '/collections/forgotten/index')).statusCode).toBe(204)
    const after = await query(querying, 'forgotten', { filter: { '/s': 'x' } })
    expect(after.statusCode).toBe(404)
    expect(after.json().code).toBe('DOCS_ERR_NOT_FOUND')
  })

  it('moves there to a changed definition as soon as it is ready, a new field included', async () => {
    for (let index = 0; index < 5; index++) await put(changing, `/docs/changed:${index}`, { s: 'x', n: index })
    await indexReady(changing, 'changed', [{ pointer: '/s', type: 'tag' }])
    await remembered('changed', { filter: { '/s': 'x' } })
    await indexReady(changing, 'changed', [{ pointer: '/n', type: 'number', sortable: true }])
    const page = await query(querying, 'changed', { filter: { '/n': { $gte: 3 } }, sort: [{ pointer: '/n' }] })
    expect(page.statusCode).toBe(200)
    expect(page.json().items.map((item: { key: string }) => item.key)).toEqual(['changed:3', 'changed:4'])
    const old = await query(querying, 'changed', { filter: { '/s': 'x' } })
    expect(old.statusCode).toBe(400)
  })

  it('answers from the previous definition while the new one is built, and from the new one once ready', async () => {
    for (let index = 0; index < 5; index++) await put(changing, `/docs/rebuilding:${index}`, { s: `v${index}`, t: 'y' })
    await indexReady(changing, 'rebuilding', [{ pointer: '/s', type: 'tag' }])
    await remembered('rebuilding', { filter: { '/s': 'v1' } })
    const declared = await put(changing, '/collections/rebuilding/index', { fields: [{ pointer: '/t', type: 'tag' }] })
    expect([200, 202]).toContain(declared.statusCode)
    // Whichever generation answers, the answer is a right one: the old definition's, or 400 once it is gone.
    const during = await query(querying, 'rebuilding', { filter: { '/s': 'v1' } })
    if (during.statusCode === 200) expect(during.json().items.map((item: { key: string }) => item.key)).toEqual(['rebuilding:1'])
    else expect(during.statusCode).toBe(400)
    await indexReady(changing, 'rebuilding', [{ pointer: '/t', type: 'tag' }])
    const after = await query(querying, 'rebuilding', { filter: { '/t': 'y' }, limit: 10 })
    expect(after.statusCode).toBe(200)
    expect(after.json().items).toHaveLength(5)
  })
})
