import { beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, bearer, buildGuardedApp, expectForbidden, expectUnauthorized, tokenFor } from './guarded-app.js'

/** Batches, listings and collection schemas: each key or collection checked on its own. */
const app = await buildGuardedApp()
let reader: string
let writer: string
let schemaEditor: string

function as (token: string | undefined, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) {
  return app.inject({
    method,
    url,
    headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) })
  })
}

beforeAll(async () => {
  reader = (await tokenFor(app, [{ prefix: 'u:42:', rights: ['read'] }])).token
  writer = (await tokenFor(app, [{ prefix: 'u:42:', rights: ['write'] }])).token
  schemaEditor = (await tokenFor(app, [{ prefix: 'u:', rights: ['schema'] }, { prefix: 'w', rights: ['schema'] }])).token
  for (const key of ['u:42:a', 'u:42:b', 'u:420:c', 'u:43:d', 'v:1']) {
    expect((await as(ADMIN_TOKEN, 'PUT', `/docs/${key}`, { key })).statusCode).toBe(201)
  }
})

describe('batches', () => {
  it('read each key in scope and answer 403 in the items of the others, without their values', async () => {
    const response = await as(reader, 'POST', '/batch/read', { keys: ['u:420:c', 'u:42:a', 'u:43:d', 'u:42:missing'] })
    expect(response.statusCode).toBe(200)
    expect(response.json().items).toEqual([
      { key: 'u:420:c', status: 403 },
      expect.objectContaining({ key: 'u:42:a', status: 200, value: { key: 'u:42:a' } }),
      { key: 'u:43:d', status: 403 },
      { key: 'u:42:missing', status: 404 }
    ])
  })

  it('write each item in scope and answer 403 for the others, which are not written', async () => {
    const response = await as(writer, 'POST', '/batch/write', {
      items: [{ key: 'u:42:new', value: 1 }, { key: 'u:420:c', value: 'overwritten' }, { key: 'v:2', value: 2 }]
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().items).toEqual([
      expect.objectContaining({ key: 'u:42:new', status: 201 }), { key: 'u:420:c', status: 403 }, { key: 'v:2', status: 403 }
    ])
    expect((await as(ADMIN_TOKEN, 'GET', '/docs/u:420:c')).json()).toEqual({ key: 'u:420:c' })
    expect((await as(ADMIN_TOKEN, 'GET', '/docs/v:2')).statusCode).toBe(404)
  })

  it('need the right somewhere: a reader cannot write any item, nor anyone without credentials', async () => {
    expectForbidden(await as(reader, 'POST', '/batch/write', { items: [{ key: 'u:42:a', value: 0 }] }))
    expectForbidden(await as(writer, 'POST', '/batch/read', { keys: ['u:42:a'] }))
    expectUnauthorized(await as(undefined, 'POST', '/batch/read', { keys: ['u:42:a'] }), false)
  })
})

describe('listings', () => {
  async function listAll (token: string, prefix: string): Promise<string[]> {
    const keys: string[] = []
    let cursor: string | null = null
    for (let page = 0; page < 10_000; page++) {
      const query = new URLSearchParams({ prefix, limit: '100', ...(cursor ? { cursor } : {}) })
      const response = await as(token, 'GET', `/docs?${query}`)
      expect(response.statusCode, response.body).toBe(200)
      keys.push(...response.json().keys)
      cursor = response.json().cursor
      if (cursor === null) break
    }
    return keys.sort()
  }

  it('return only keys under granted read prefixes, whatever prefix is asked for', async () => {
    expect(await listAll(reader, 'u:42:')).toEqual(['u:42:a', 'u:42:b', 'u:42:new'])
    expect(await listAll(reader, 'u:')).toEqual(['u:42:a', 'u:42:b', 'u:42:new'])
    expect(await listAll(reader, '')).toEqual(['u:42:a', 'u:42:b', 'u:42:new'])
    expect(await listAll(ADMIN_TOKEN, 'u:4')).toEqual(['u:420:c', 'u:42:a', 'u:42:b', 'u:42:new', 'u:43:d'])
  })

  it('refuse a prefix no read scope meets: siblings and other spaces', async () => {
    for (const prefix of ['u:420', 'u:43:', 'v']) expectForbidden(await as(reader, 'GET', `/docs?prefix=${prefix}`), prefix)
    expectForbidden(await as(writer, 'GET', '/docs?prefix=u:42:'))
    expectUnauthorized(await as(undefined, 'GET', '/docs?prefix=u:42:'), false)
  })

  it('refuse a cursor made for another prefix, and forged ones', async () => {
    const page = (await as(ADMIN_TOKEN, 'GET', '/docs?prefix=u:&limit=1')).json()
    expect(page.cursor).toEqual(expect.any(String))
    expect((await as(reader, 'GET', `/docs?prefix=u:42:&cursor=${page.cursor}`)).statusCode).toBe(400)
    const forged = Buffer.from(JSON.stringify(['u:43:', '0'])).toString('base64url')
    expectForbidden(await as(reader, 'GET', `/docs?prefix=u:43:&cursor=${forged}`))
    // A cursor for the reader's own prefix pages only through what it may read.
    const own = Buffer.from(JSON.stringify(['', '0'])).toString('base64url')
    const listed = await as(reader, 'GET', `/docs?prefix=&cursor=${own}&limit=1000`)
    expect(listed.json().keys.every((key: string) => key.startsWith('u:42:'))).toBe(true)
  })
})

describe('collection schemas', () => {
  const schema = { type: 'object' }

  it('are reached when `collection + separator` starts with a schema prefix', async () => {
    expect((await as(schemaEditor, 'PUT', '/schemas/u', schema)).statusCode).toBe(201)
    expect((await as(schemaEditor, 'PUT', '/schemas/w', schema)).statusCode).toBe(201)
    expect((await as(schemaEditor, 'PUT', '/schemas/wide', schema)).statusCode).toBe(201)
    expect((await as(schemaEditor, 'GET', '/schemas/u')).statusCode).toBe(200)
    expectForbidden(await as(schemaEditor, 'PUT', '/schemas/v', schema))
    expectForbidden(await as(schemaEditor, 'GET', '/schemas/v'))
    expectForbidden(await as(schemaEditor, 'DELETE', '/schemas/v'))
    // users:42: does not reach the schema of the whole `u` collection, whatever rights it holds.
    const userAdmin = (await tokenFor(app, [{ prefix: 'u:42:', rights: ['read', 'write', 'schema'] }])).token
    expectForbidden(await as(userAdmin, 'PUT', '/schemas/u', schema))
    expectForbidden(await as(reader, 'GET', '/schemas/u'))
  })

  it('are listed only when reachable', async () => {
    expect((await as(ADMIN_TOKEN, 'PUT', '/schemas/v', schema)).statusCode).toBe(201)
    const listed = (await as(schemaEditor, 'GET', '/schemas')).json().collections.map((entry: { collection: string }) => entry.collection)
    expect(listed).toEqual(['u', 'w', 'wide'])
    expectForbidden(await as(reader, 'GET', '/schemas'))
  })

  it('report on existing documents only what the credentials may read', async () => {
    const put = await as(schemaEditor, 'PUT', '/schemas/u', { type: 'object', required: ['absent'] })
    expect(put.statusCode).toBe(200)
    expect(put.json().existingDocuments).toMatchObject({ violating: 5, examples: [] })
    const mixed = (await tokenFor(app, [{ prefix: 'u:', rights: ['schema'] }, { prefix: 'u:42:', rights: ['read'] }])).token
    const again = await as(mixed, 'PUT', '/schemas/u', { type: 'object', required: ['absent'] })
    expect(again.json().existingDocuments.examples.map((example: { key: string }) => example.key).sort())
      .toEqual(['u:42:a', 'u:42:b', 'u:42:new'])
  })
})
