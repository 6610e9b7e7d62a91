import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, bearer, buildGuardedApp, expectForbidden, expectUnauthorized, tokenFor } from '../../access/guarded-app.js'
import { get, put } from '../../helpers/app.js'
import { eventually } from '../../helpers/local-redis.js'
import { INDEX_READY_MS, query, shortQuery, type Page } from './helpers.js'

const app = await buildGuardedApp()
const admin = bearer(ADMIN_TOKEN)

const fields = [{ pointer: '/status', type: 'tag' }, { pointer: '/total', type: 'number', sortable: true }]

/** users:42:* and users:420:* hold open orders too: a scope ending with the separator reaches only its own. */
const documents = [
  ...Array.from({ length: 12 }, (_, index) => [`users:42:${index}`, { status: 'open', total: index }] as const),
  ...Array.from({ length: 9 }, (_, index) => [`users:420:${index}`, { status: 'open', total: index + 0.5 }] as const),
  ...Array.from({ length: 7 }, (_, index) => [`users:7:${index}`, { status: index % 2 ? 'open' : 'paid', total: 100 + index }] as const)
]
for (const [key, value] of documents) expect((await put(app, `/docs/${encodeURIComponent(key)}`, value, admin)).statusCode).toBe(201)
expect([200, 202]).toContain((await put(app, '/collections/users/index', { fields }, admin)).statusCode)
await eventually(async () => (await get(app, '/collections/users/index', admin)).json().state === 'ready', INDEX_READY_MS)

async function everyKey (token: string, body: Record<string, unknown>) {
  const keys: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const response = await query(app, 'users', { ...body, ...(cursor ? { cursor } : {}) }, { ...bearer(token), prefer: 'count=exact' })
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json() as Page
    keys.push(...page.items.map((item) => item.key))
    cursor = page.cursor
    pages++
  } while (cursor !== null && pages < 100)
  return keys
}

describe('queries return and count only what the credentials may read, on one Redis and on a cluster', () => {
  it('a token scoped to users:42: finds and counts only its own documents, on every page and sort', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'users:42:', rights: ['read'] }])
    const own = documents.filter(([key]) => key.startsWith('users:42:')).map(([key]) => key)
    for (const body of [{ filter: { '/status': 'open' }, limit: 5 }, { filter: {}, limit: 4, sort: [{ pointer: '/total', order: 'desc' }] },
      { filter: { '/total': { $gte: 0 } }, limit: 100 }]) {
      expect((await everyKey(token, body)).sort()).toEqual([...own].sort())
      const first = await query(app, 'users', body, { ...bearer(token), prefer: 'count=exact' })
      expect(first.json().count).toBe(own.length)
    }
    expect((await query(app, 'users', { filter: { '/total': { $gte: 100 } } }, { ...bearer(token), prefer: 'count=exact' })).json())
      .toEqual({ items: [], cursor: null, count: 0 })
  })

  it('a cursor carried to another token gives that token nothing beyond its own scopes', async () => {
    const wide = await tokenFor(app, [{ prefix: 'users:', rights: ['read'] }])
    const narrow = await tokenFor(app, [{ prefix: 'users:7:', rights: ['read'] }])
    const body = { filter: { '/status': 'open' }, limit: 2, sort: [{ pointer: '/total' }] }
    const { cursor } = (await query(app, 'users', body, bearer(wide.token))).json() as Page
    expect(cursor).not.toBeNull()
    const carried = (await query(app, 'users', { ...body, cursor, limit: 100 }, { ...bearer(narrow.token), prefer: 'count=exact' })).json() as Page
    expect(carried.items.map((item) => item.key).every((key) => key.startsWith('users:7:'))).toBe(true)
    expect(carried.count).toBe(3)
    const forged = Buffer.from(JSON.stringify([JSON.parse(Buffer.from(cursor!, 'base64url').toString())[0], 'users:', -1])).toString('base64url')
    const fromForged = (await query(app, 'users', { ...body, cursor: forged, limit: 100 }, bearer(narrow.token))).json() as Page
    expect(fromForged.items.map((item) => item.key).every((key) => key.startsWith('users:7:'))).toBe(true)
  })

  it('the GET form finds and counts only the documents a token scoped to users:42: may read, on every page', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'users:42:', rights: ['read'] }])
    const own = documents.filter(([key]) => key.startsWith('users:42:')).map(([key]) => key)
    const keys: string[] = []
    let cursor: string | null = null
    do {
      const response = await shortQuery(app, 'users', [['/status', 'open'], ['sort', '-/total'], ['limit', '5'], ...(cursor ? [['cursor', cursor] as [string, string]] : [])],
        { ...bearer(token), prefer: 'count=exact' })
      expect(response.statusCode, response.body).toBe(200)
      const page = response.json() as Page
      expect(page.count).toBe(own.length)
      keys.push(...page.items.map((item) => item.key))
      cursor = page.cursor
    } while (cursor !== null && keys.length <= documents.length)
    expect(keys.sort()).toEqual([...own].sort())
    expect((await shortQuery(app, 'users', [['/total', 'gte:100']], { ...bearer(token), prefer: 'count=exact' })).json()).toEqual({ items: [], cursor: null, count: 0 })
    const head = await shortQuery(app, 'users', [['/status', 'open']], { ...bearer(token), prefer: 'count=exact' }, 'HEAD')
    expect([head.statusCode, head.body]).toEqual([200, ''])
  })

  it('several read scopes add up; scopes outside the collection count for nothing', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'users:7:', rights: ['read'] }, { prefix: 'users:420:', rights: ['read'] }, { prefix: 'other:', rights: ['read'] }])
    const keys = await everyKey(token, { filter: { '/status': { $in: ['open', 'paid'] } }, limit: 3 })
    expect(keys.sort()).toEqual(documents.map(([key]) => key).filter((key) => key.startsWith('users:7:') || key.startsWith('users:420:')).sort())
  })

})

describe('query access on any Redis', () => {
  it('a token reading the whole collection finds everything', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'users:', rights: ['read'] }])
    expect((await everyKey(token, { filter: { '/status': { $in: ['open', 'paid'] } }, limit: 7 })).sort()).toEqual(documents.map(([key]) => key).sort())
  })

  it('is 403 to a token that may read nothing of the collection, 401 without credentials', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'orders:', rights: ['read'] }, { prefix: 'users:', rights: ['write'] }])
    expectForbidden(await query(app, 'users', { filter: { '/status': 'open' } }, bearer(token)))
    expectUnauthorized(await query(app, 'users', { filter: { '/status': 'open' } }), false)
    expectForbidden(await shortQuery(app, 'users', [['/status', 'open']], bearer(token)))
    expectForbidden(await shortQuery(app, 'users', [['/price', 'ten'], ['limt', '5']], bearer(token)))
    expectUnauthorized(await shortQuery(app, 'users', [['/status', 'open']]), false)
  })

  it('the index routes take the schema right on the collection', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'users:', rights: ['read', 'write'] }])
    expectForbidden(await get(app, '/collections/users/index', bearer(token)))
    expectForbidden(await put(app, '/collections/users/index', { fields }, bearer(token)))
    const owner = await tokenFor(app, [{ prefix: 'users:', rights: ['schema'] }])
    expect((await get(app, '/collections/users/index', bearer(owner.token))).statusCode).toBe(200)
  })
})
