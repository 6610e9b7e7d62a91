import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, remove, uniqueKey } from '../helpers/app.js'
import { segment, trickyNames } from '../helpers/member-names.js'

const app = await buildTestApp()

describe('GET /docs/{key}/{pointer}: any member name is reachable', () => {
  const key = uniqueKey()
  const document = Object.fromEntries(trickyNames.map((name, index) => [name, { index, name }]))

  beforeAll(async () => {
    expect((await put(app, `/docs/${key}`, document)).statusCode).toBe(201)
  })

  it.each(trickyNames.map((name, index) => [name, index]))('member %j', async (name, index) => {
    const response = await get(app, `/docs/${key}/${segment(name)}`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ index, name })
    const leaf = await get(app, `/docs/${key}/${segment(name)}/name`)
    expect(leaf.json()).toBe(name)
  })
})

describe('member names that RedisJSON paths cannot express (leading space or line feed)', () => {
  const names = [' a', ' ', '  ', '\nx', ' "q" \\ ']

  it.each(names)('%j is read, replaced, added and deleted as the last token, never as another member', async (name) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { [name]: { v: 1 }, a: 2, x: 3, '': 4, q: 5, n: { [name]: [1] } })
    expect((await get(app, `/docs/${key}/${segment(name)}`)).json()).toEqual({ v: 1 })
    expect((await get(app, `/docs/${key}/n/${segment(name)}`)).json()).toEqual([1])
    expect((await put(app, `/docs/${key}/${segment(name)}`, 'replaced')).statusCode).toBe(200)
    expect((await put(app, `/docs/${key}/x/${segment(name)}`, 1)).statusCode).toBe(404)
    const added = await put(app, `/docs/${key}/n/${segment(name + name)}`, 'added')
    expect(added.statusCode).toBe(201)
    expect(added.json()).toBe('added')
    expect((await app.inject({ method: 'DELETE', url: `/docs/${key}/n/${segment(name)}` })).statusCode).toBe(204)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ [name]: 'replaced', a: 2, x: 3, '': 4, q: 5, n: { [name + name]: 'added' } })
    expect((await get(app, `/docs/${key}/n/${segment(name)}`)).statusCode).toBe(404)
  })

  it('is 422 inside a pointer, where only the last token can be reached', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { ' a': { b: 1 }, a: { b: 2 } })
    const response = await get(app, `/docs/${key}/${segment(' a')}/b`)
    expect(response.statusCode).toBe(422)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_UNADDRESSABLE' })
  })

  it('is 422 for a merge patch at such a member', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { ' a': { b: 1 } })
    const response = await app.inject({
      method: 'PATCH', url: `/docs/${key}/${segment(' a')}`, payload: '{"c":1}', headers: { 'content-type': 'application/merge-patch+json' }
    })
    expect(response.statusCode).toBe(422)
  })
})

describe('GET: digits address elements of arrays and members of objects', () => {
  const key = uniqueKey()
  const document = {
    list: ['zero', 'one', { 0: 'member zero', 1: ['nested zero'] }],
    map: { 0: 'member zero', 10: 'member ten', '01': 'member zero-one', '-': 'member dash' },
    grid: [[1, 2], [3, 4]]
  }

  beforeAll(async () => { await put(app, `/docs/${key}`, document) })

  it.each([
    ['/list/0', 'zero'],
    ['/list/1', 'one'],
    ['/list/2/0', 'member zero'],
    ['/list/2/1/0', 'nested zero'],
    ['/map/0', 'member zero'],
    ['/map/10', 'member ten'],
    ['/map/01', 'member zero-one'],
    ['/map/-', 'member dash'],
    ['/grid/1/0', 3],
    ['/grid/1', [3, 4]]
  ])('%s', async (pointer, expected) => {
    const response = await get(app, `/docs/${key}${pointer}`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(expected)
  })

  it.each([
    '/list/3', '/list/01', '/list/-', '/list/-1', '/list/1.0', '/list/one', '/map/1', '/grid/2/0',
    '/list/99999999999999999999999', '/list/999999999999999', '/list/0/0', '/missing', '/missing/0'
  ])('%s is 404', async (pointer) => {
    const response = await get(app, `/docs/${key}${pointer}`)
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toContain('application/problem+json')
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_NOT_FOUND', status: 404 })
  })

  it('answers 404 for pointers longer than anything RedisJSON can hold, without walking them', async () => {
    const response = await get(app, `/docs/${key}${'/0'.repeat(5000)}`)
    expect(response.statusCode).toBe(404)
    expect((await app.inject({ method: 'DELETE', url: `/docs/${key}${'/0'.repeat(5000)}` })).statusCode).toBe(404)
  })

  it('survives an index that overflows 64 bits, which would crash RedisJSON', async () => {
    await get(app, `/docs/${key}/grid/${'9'.repeat(40)}`)
    const response = await get(app, `/docs/${key}/grid/0/1`)
    expect(response.json()).toBe(2)
  })
})

describe('GET: the root, the empty member name and a trailing slash', () => {
  const key = uniqueKey()

  beforeAll(async () => { await put(app, `/docs/${key}`, { '': 'empty name', a: { '': 'inner empty' } }) })

  it('reads the whole document at /docs/{key}', async () => {
    const response = await get(app, `/docs/${key}`)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.body).toBe('{"":"empty name","a":{"":"inner empty"}}')
  })

  it('reads a trailing slash as the member named "" (pointer "/")', async () => {
    expect((await get(app, `/docs/${key}/`)).json()).toBe('empty name')
    expect((await get(app, `/docs/${key}/a/`)).json()).toBe('inner empty')
  })

  it('ignores the query string', async () => {
    expect((await get(app, `/docs/${key}/a?x=1`)).json()).toEqual({ '': 'inner empty' })
  })
})

describe('addresses come from the route: percent-escapes keep their meaning', () => {
  // The router percent-decodes the key and the rest of the path alike; the pointer is read as sent.
  const key = `a/b%${uniqueKey()}`
  const url = `/docs/${encodeURIComponent(key)}`
  const document = { 'c/d': { e: 'slash' }, c: { d: { e: 'nested' } }, '%2F': 'escape', '%': { '': 'percent' }, '?q': 'query', '#f': 'hash' }

  beforeAll(async () => { expect((await put(app, url, document)).statusCode).toBe(201) })

  it.each([
    ['/c%2Fd/e', 'slash'],
    ['/c~1d/e', 'slash'],
    ['/c/d/e', 'nested'],
    ['/%252F', 'escape'],
    ['/%25/', 'percent'],
    ['/%3Fq', 'query'],
    ['/%23f', 'hash'],
    ['?pointer=/c~1d/e', 'slash'],
    ['?pointer=%2Fc~1d%2Fe', 'slash']
  ])('%s', async (rest, value) => {
    expect((await get(app, url + rest)).json()).toBe(value)
  })

  it('writes and removes where it reads', async () => {
    expect((await put(app, `${url}/x%2Fy`, 1)).statusCode).toBe(201)
    expect((await get(app, `${url}/x~1y`)).json()).toBe(1)
    expect((await remove(app, `${url}/x%2Fy`)).statusCode).toBe(204)
    expect((await get(app, `${url}/x~1y`)).statusCode).toBe(404)
    expect((await get(app, url)).json()).toEqual(document)
  })

  it('reads the route\'s own segments however they are encoded', async () => {
    expect((await get(app, `/%64ocs/${encodeURIComponent(key)}/c%2Fd/e`)).json()).toBe('slash')
    expect((await get(app, `/d%6Fcs/${encodeURIComponent(key)}`)).json()).toEqual(document)
  })
})

describe('GET and HEAD of documents that are not there', () => {
  it('is 404 for a missing key', async () => {
    const response = await get(app, `/docs/${uniqueKey()}`)
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_NOT_FOUND' })
  })

  it('is 404 for a location inside a scalar document', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, 'text')
    expect((await get(app, `/docs/${key}/0`)).statusCode).toBe(404)
  })
})

describe('HEAD answers like GET without a body', () => {
  it('has the same status and headers', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: [1, 2, 3] })
    const got = await get(app, `/docs/${key}/a`)
    const head = await app.inject({ method: 'HEAD', url: `/docs/${key}/a` })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    expect(head.headers.etag).toBe(got.headers.etag)
    expect(head.headers['content-length']).toBe(got.headers['content-length'])
    expect(head.headers['content-type']).toBe(got.headers['content-type'])
    expect((await app.inject({ method: 'HEAD', url: `/docs/${uniqueKey()}` })).statusCode).toBe(404)
  })
})

describe('documents written straight into Redis', () => {
  it('are served, with an ETag, when they sit in the namespace', async () => {
    const redis = await connectRedis()
    const key = uniqueKey()
    await redis.sendCommand(['JSON.SET', app.keyPrefix + key, '$', '{"from":"redis-cli"}'])
    const response = await get(app, `/docs/${key}/from`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toBe('redis-cli')
    expect(response.headers.etag).toMatch(/^"\d+"$/)
  })
})
