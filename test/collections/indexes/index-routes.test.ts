import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, remove } from '../../helpers/app.js'
import { eventually } from '../../helpers/local-redis.js'
import { INDEX_READY_MS, indexReady, query } from './helpers.js'

const app = await buildTestApp()
const redis = await connectRedis()

describe('PUT /collections/{c}/index declares what is searchable', () => {
  it('builds over the documents already there and reports ready with their count', async () => {
    for (let index = 0; index < 25; index++) await put(app, `/docs/built:${index}`, { status: index % 2 ? 'open' : 'paid' })
    await indexReady(app, 'built', [{ pointer: '/status', type: 'tag' }])
    const state = (await get(app, '/collections/built/index')).json()
    expect(state).toEqual({ collection: 'built', fields: [{ pointer: '/status', type: 'tag' }], state: 'ready', progress: 1, documents: 25, failures: 0 })
    expect((await query(app, 'built', { filter: { '/status': 'open' } }, { prefer: 'count=exact' })).json().count).toBe(12)
  })

  it('answers the same definition again without a rebuild', async () => {
    await indexReady(app, 'same', [{ pointer: '/a', type: 'number' }])
    const again = await put(app, '/collections/same/index', { fields: [{ pointer: '/a', type: 'number' }] })
    expect(again.statusCode).toBe(200)
    expect(again.json().state).toBe('ready')
  })

  it('refuses bad definitions with 400 naming the field, and changes nothing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ fields: [{ pointer: 'status', type: 'tag' }] }, /pointer/],
      [{ fields: [{ pointer: '/a', type: 'geo' }] }, /type/],
      [{ fields: [{ pointer: '/a', type: 'text', sortable: true }] }, /sortable/],
      [{ fields: [{ pointer: '/a', type: 'tag' }, { pointer: '/a', type: 'number' }] }, /declared twice/],
      [{ fields: [{ pointer: '/items/0', type: 'tag' }] }, /pointer must match pattern/],
      [{ fields: [{ pointer: '/items/-/a', type: 'tag' }] }, /pointer must match pattern/],
      [{ fields: [{ pointer: '/ lead', type: 'tag' }] }, /pointer must match pattern/],
      [{ fields: [{ pointer: '/a~2', type: 'tag' }] }, /pointer must match pattern/],
      [{ fields: [{ pointer: '/a', type: 'boolean', sortable: true }] }, /sortable/],
      [{ fields: [] }, /fields/],
      [{ fields: [{ pointer: '/a', type: 'tag', extra: 1 }] }, /additional/i]
    ]
    for (const [body, detail] of cases) {
      const response = await put(app, '/collections/bad/index', body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(response.json().detail + JSON.stringify(response.json().errors ?? ''), JSON.stringify(body)).toMatch(detail)
    }
    expect((await get(app, '/collections/bad/index')).statusCode).toBe(404)
  })

  it('refuses what the description refuses (schema-valid requests Schemathesis found refused, or answered 500)', async () => {
    // RediSearch reads a field's JSONPath as a C string: a NUL cut it short, FT.CREATE failed, and every route of the index was 500.
    const nul = await put(app, '/collections/nul/index', { fields: [{ pointer: '/a\u0000b', type: 'tag' }, { pointer: '/c', type: 'tag' }] })
    expect(nul.statusCode).toBe(400)
    expect(JSON.stringify(nul.json().errors)).toMatch(/fields\/0\/pointer.*must match pattern/)
    expect((await get(app, '/collections/nul/index')).statusCode).toBe(404)
    expect((await app.inject({ method: 'GET', url: '/collections/nul/query' })).statusCode).toBe(404)
    const braced = await app.inject({ method: 'PUT', url: '/collections/%7Bbraced/index', payload: { fields: [{ pointer: '/a', type: 'tag' }] } })
    expect(braced.statusCode).toBe(400)
    expect(braced.json().detail).toMatch(/params\/collection must match pattern/)
  })

  it('checks field types against the collection\'s schema', async () => {
    await put(app, '/schemas/typed', { type: 'object', properties: { total: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } } })
    const wrong = await put(app, '/collections/typed/index', { fields: [{ pointer: '/total', type: 'tag' }] })
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().detail).toMatch(/"number" at \/total/)
    const sortedArray = await put(app, '/collections/typed/index', { fields: [{ pointer: '/tags', type: 'tag', sortable: true }] })
    expect(sortedArray.statusCode).toBe(400)
    await indexReady(app, 'typed', [{ pointer: '/total', type: 'number', sortable: true }, { pointer: '/tags', type: 'tag' }, { pointer: '/free', type: 'tag' }])
  })

  // Three builds, each given INDEX_READY_MS: a loaded cluster once took this test past the default 30 s.
  it('rebuilds a changed definition while queries keep answering from the previous one', async () => {
    for (let index = 0; index < 300; index++) await put(app, `/docs/rebuilt:${String(index).padStart(3, '0')}`, { n: index, s: `v${index % 7}` })
    await indexReady(app, 'rebuilt', [{ pointer: '/n', type: 'number', sortable: true }])
    let querying = true
    const failures: string[] = []
    let answered = 0
    const queries = (async () => {
      while (querying && answered < 5000) {
        const response = await query(app, 'rebuilt', { filter: { '/n': { $gte: 0 } }, limit: 5 }, { prefer: 'count=exact' })
        answered++
        if (response.statusCode !== 200 || response.json().count !== 300) failures.push(response.body)
      }
    })()
    try {
      for (const fields of [[{ pointer: '/s', type: 'tag' }, { pointer: '/n', type: 'number', sortable: true }], [{ pointer: '/n', type: 'number', sortable: true }]]) {
        await indexReady(app, 'rebuilt', fields)
      }
    } finally {
      querying = false
      await queries
    }
    expect(failures).toEqual([])
    expect(answered).toBeGreaterThan(0)
    const names = (await redis.sendCommand(['FT._LIST']) as string[]).map(String).filter((name) => name.startsWith(app.keyPrefix) && name.includes('rebuilt'))
    expect(names).toHaveLength(1)
  }, 3 * INDEX_READY_MS + 10_000)

  it('takes each write into the next query', async () => {
    await indexReady(app, 'live', [{ pointer: '/s', type: 'tag' }])
    for (let index = 0; index < 20; index++) {
      await put(app, `/docs/live:${index}`, { s: 'now' })
      expect((await query(app, 'live', { filter: { '/s': 'now' } }, { prefer: 'count=exact' })).json().count).toBe(index + 1)
    }
  })
})

describe('DELETE /collections/{c}/index', () => {
  it('drops the index and never the documents', async () => {
    await put(app, '/docs/dropped:1', { s: 'x' })
    await indexReady(app, 'dropped', [{ pointer: '/s', type: 'tag' }])
    expect((await remove(app, '/collections/dropped/index')).statusCode).toBe(204)
    expect((await get(app, '/docs/dropped:1')).json()).toEqual({ s: 'x' })
    expect((await get(app, '/collections/dropped/index')).statusCode).toBe(404)
    expect((await query(app, 'dropped', { filter: { '/s': 'x' } })).statusCode).toBe(404)
    expect((await remove(app, '/collections/dropped/index')).statusCode).toBe(404)
    await eventually(async () => !(await redis.sendCommand(['FT._LIST']) as string[]).map(String).some((name) => name.startsWith(app.keyPrefix) && name.includes('dropped')))
  })
})
