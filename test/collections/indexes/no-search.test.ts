import { describe, expect, it } from 'vitest'
import { provisionedBinaries } from '../../../src/redis/local-server.js'
import { buildTestApp, get, put, remove } from '../../helpers/app.js'
import { startOwnRedis } from '../../helpers/local-redis.js'
import { query, shortQuery } from './helpers.js'

/*
 * On a Redis with RedisJSON alone (no Search module), documents are served as always, /readyz says the
 * Search module is absent, and every index and query route is 501 DOCS_ERR_NO_SEARCH, never a 500.
 */

const [json] = provisionedBinaries.modules
const redis = await startOwnRedis({ binaries: { server: provisionedBinaries.server, modules: [json!] } })
const app = await buildTestApp({ redis: { socketPath: redis.socketPath } })

function expectNoSearch (response: Awaited<ReturnType<typeof get>>, withBody = true) {
  expect(response.statusCode, response.body).toBe(501)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  if (withBody) expect(response.json()).toMatchObject({ code: 'DOCS_ERR_NO_SEARCH', status: 501, type: '/problems/no-search', title: 'This Redis has no Search module' })
}

describe('a Redis without the Search module', () => {
  it('serves documents, and /readyz says the Search module is absent', async () => {
    expect((await put(app, '/docs/orders:1', { status: 'open' })).statusCode).toBe(201)
    expect((await get(app, '/docs/orders:1')).json()).toEqual({ status: 'open' })
    const ready = await get(app, '/readyz')
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toMatchObject({ status: 'ok', search: 'absent' })
    expect(ready.json().detail).toMatch(/no Search module/)
  })

  it('answers 501 DOCS_ERR_NO_SEARCH on every index and query route, HEAD included, and changes nothing', async () => {
    expectNoSearch(await put(app, '/collections/orders/index', { fields: [{ pointer: '/status', type: 'tag' }] }))
    expectNoSearch(await get(app, '/collections/orders/index'))
    expectNoSearch(await remove(app, '/collections/orders/index'))
    expectNoSearch(await query(app, 'orders', { filter: { '/status': 'open' } }))
    expectNoSearch(await shortQuery(app, 'orders', [['/status', 'open']]))
    expectNoSearch(await shortQuery(app, 'orders', [['/status', 'open']], {}, 'HEAD'), false)
    expectNoSearch(await app.inject({ method: 'POST', url: '/collections/orders/aggregate', payload: { metrics: { n: { $count: {} } } } }))
    expect((await get(app, '/docs/orders:1')).json()).toEqual({ status: 'open' })
  })
})
