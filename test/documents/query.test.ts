import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, send, uniqueKey, versionKeyOf } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

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

/** {"k0":{"k0":...100 levels...,"k1":"v1",...},"k1":"v1",...}: about 1 kB a level. */
function deepDocument (levels: number, width: number) {
  let value: unknown = 'leaf'
  for (let level = 0; level < levels; level++) {
    value = Object.fromEntries(Array.from({ length: width }, (_, index) => [`k${index}`, index === 0 ? value : 'v'.repeat(8)]))
  }
  return value
}

describe('JSONPath costs are bounded before RedisJSON does the work', () => {
  const getPath = (key: string, expression: string) => get(app, `/docs/${key}?jsonpath=${encodeURIComponent(expression)}`)

  it('refuses $..*..* on a 120 kB, 100-level document (a 606 MB answer) with 422, and Redis stays responsive', async () => {
    const key = uniqueKey()
    expect((await put(app, `/docs/${key}`, deepDocument(100, 80))).statusCode).toBe(201)
    for (const expression of ['$..*..*', '$..*', '$..k0']) {
      const response = await getPath(key, expression)
      expect(response.statusCode, expression).toBe(422)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_JSONPATH_VALUES' })
    }
    expect(await redis.ping()).toBe('PONG')
    expect((await get(app, '/health')).statusCode).toBe(200)
    expect((await getPath(key, '$.k1')).json()).toEqual(['vvvvvvvv'])
  })

  it('answers a recursive descent over a shallow document', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { items: Array.from({ length: 500 }, (_, id) => ({ id, price: id / 2 })) })
    const response = await getPath(key, '$..price')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toHaveLength(500)
  })

  it.each([
    `$${'[?(@'.repeat(21)}${')]'.repeat(21)}`,
    '$.a[?(@.name =~ "(a{1,100}){1,100}")]',
    '$[0,0,0,0,0,0,0,0]'
  ])('refuses %s with 400 before it reaches RedisJSON', async (expression) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: [{ name: 'aaaa' }] })
    const response = await getPath(key, expression)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_INVALID_JSONPATH' })
  })

  it('measures a document whose record predates sizes once, and keeps what it found', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: { b: [1, 2] } })
    const recordKey = versionKeyOf(app.keyPrefix, key)
    const version = (await redis.get(recordKey))!.split(':')[0]!
    await redis.set(recordKey, version)
    expect((await getPath(key, '$..b')).json()).toEqual([[1, 2]])
    expect(await redis.get(recordKey)).toBe(`${version}::17:3`)
    await redis.sendCommand(['JSON.SET', `${app.keyPrefix}${key}-outside`, '$', '{"a":{"b":1}}'])
    expect((await getPath(`${key}-outside`, '$..b')).json()).toEqual([1])
    expect(await redis.exists(versionKeyOf(app.keyPrefix, `${key}-outside`))).toBe(0)
  })
})

describe('MAX_REPLY_BYTES bounds what a JSONPath answers', () => {
  it('refuses matches that add up past the limit, before sending them', async () => {
    const small = await buildTestApp({ limits: { documentBytes: 4096, replyBytes: 4096, workBytes: 1024 * 1024 } })
    const key = uniqueKey()
    // Three nested levels around 1.5 kB: $..* matches each level, 4.5 kB together.
    await put(small, `/docs/${key}`, { a: { a: { a: 'x'.repeat(1500) } } })
    const response = await get(small, `/docs/${key}?jsonpath=${encodeURIComponent('$..*')}`)
    expect(response.statusCode).toBe(422)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_REPLY_BYTES', max: 4096 })
    expect((await get(small, `/docs/${key}?jsonpath=${encodeURIComponent('$.a.a.a')}`)).statusCode).toBe(200)
  })
})

describe('MAX_JSONPATH_VALUES bounds what an expression that may match several values visits', () => {
  it('refuses a filter over half a million elements, and answers a single value of the same document', async () => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, `{"zeros":[${Array(500_000).fill(0).join(',')}],"name":"z"}`)
    for (const expression of ['$.zeros[?@>0]', '$..*', '$.zeros[*]', '$.zeros[0:10]']) {
      const response = await get(app, `/docs/${key}?jsonpath=${encodeURIComponent(expression)}`)
      expect(response.statusCode, expression).toBe(422)
      expect(response.json()).toMatchObject({ limit: 'MAX_JSONPATH_VALUES', max: 250_000 })
    }
    expect((await get(app, `/docs/${key}?jsonpath=${encodeURIComponent('$.name')}`)).json()).toEqual(['z'])
    expect((await get(app, `/docs/${key}?jsonpath=${encodeURIComponent('$.zeros[7]')}`)).json()).toEqual([0])
  })
})
