import { describe, expect, it } from 'vitest'
import { buildTestApp, get, put, send, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()

const store = {
  store: {
    book: [
      { category: 'reference', title: 'Sayings', price: 8.95 },
      { category: 'fiction', title: 'Sword', price: 12.99, isbn: '0-553-21311-3' }
    ],
    bicycle: { color: 'red', price: 399 }
  }
}

describe('GET /docs/{key}?jsonpath=', () => {
  it('answers every match as a JSON array', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, store)
    const cases: Array<[string, unknown]> = [
      ['$..price', [399, 8.95, 12.99]],
      ['$.store.book[*].title', ['Sayings', 'Sword']],
      ['$.store.book[?(@.price < 10)].title', ['Sayings']],
      ['$..book[?(@.isbn)].title', ['Sword']],
      ['$.store.nothing', []]
    ]
    for (const [expression, matches] of cases) {
      const response = await get(app, `/docs/${key}?jsonpath=${encodeURIComponent(expression)}`)
      expect(response.statusCode).toBe(200)
      expect((response.json() as unknown[]).sort()).toEqual((matches as unknown[]).sort())
      expect(response.headers.etag).toMatch(/^"\d+"$/)
    }
  })

  it('keeps exact digits', async () => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, '{"a":{"id":12345678901234567890}}')
    expect((await get(app, `/docs/${key}?jsonpath=${encodeURIComponent('$..id')}`)).body).toBe('[12345678901234567890]')
  })

  it.each([
    ['store', 'not starting with $'],
    ['$[', 'invalid'],
    ['$.a[99999999999999999999999]', 'an index that would crash RedisJSON'],
    ['$..a..b..c', 'too many recursive descents'],
    ['$["open', 'an unclosed name']
  ])('is 400 for %s (%s)', async (expression) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: [1] })
    const response = await get(app, `/docs/${key}?jsonpath=${encodeURIComponent(expression)}`)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_INVALID_JSONPATH' })
    expect((await get(app, `/docs/${key}/a/0`)).json()).toBe(1)
  })

  it('is 404 for a missing document and 400 beside a pointer', async () => {
    expect((await get(app, `/docs/${uniqueKey()}?jsonpath=$`)).statusCode).toBe(404)
    const key = uniqueKey()
    await put(app, `/docs/${key}`, store)
    expect((await get(app, `/docs/${key}/store?jsonpath=$`)).statusCode).toBe(400)
  })
})

describe('GET /meta/{key}/{pointer}', () => {
  it.each([
    ['', { type: 'object', length: 1, keys: ['store'] }],
    ['/store', { type: 'object', length: 2, keys: ['book', 'bicycle'] }],
    ['/store/book', { type: 'array', length: 2 }],
    ['/store/book/0/title', { type: 'string', length: 7 }],
    ['/store/bicycle/price', { type: 'integer' }],
    ['/store/book/0/price', { type: 'number' }]
  ])('describes %j', async (pointer, description) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, store)
    const response = await app.inject({ method: 'GET', url: `/meta/${key}${pointer}` })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toMatchObject(description)
    expect(body.memory).toBeGreaterThan(0)
    if (!('keys' in description)) expect(body.keys).toBeUndefined()
    expect(response.headers.etag).toMatch(/^"\d+"$/)
  })

  it('is 404 where nothing is', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, store)
    expect((await app.inject({ method: 'GET', url: `/meta/${key}/nope` })).statusCode).toBe(404)
  })
})
