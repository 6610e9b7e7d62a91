import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, operate, put, send, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

async function documentWith (value: unknown) {
  const key = uniqueKey()
  await put(app, `/docs/${key}`, value)
  return key
}

describe('POST one operation: the result without a round trip', () => {
  it.each([
    [{ n: 5 }, '/n', { op: 'incr', by: 2 }, 7, { n: 7 }],
    [{ n: 5 }, '/n', { op: 'incr', by: -0.5 }, 4.5, { n: 4.5 }],
    [{ n: 5 }, '/n', { op: 'mult', by: 3 }, 15, { n: 15 }],
    [{ s: 'ab' }, '/s', { op: 'append', value: 'cd' }, 4, { s: 'abcd' }],
    [{ a: [1] }, '/a', { op: 'push', values: [2, { x: 3 }] }, 3, { a: [1, 2, { x: 3 }] }],
    [{ a: [1, 4] }, '/a', { op: 'insert', index: 1, values: [2, 3] }, 4, { a: [1, 2, 3, 4] }],
    [{ a: [1, 2, 3] }, '/a', { op: 'pop' }, 3, { a: [1, 2] }],
    [{ a: [{ k: 1 }, 2] }, '/a', { op: 'pop', index: 0 }, { k: 1 }, { a: [2] }],
    [{ a: [1, 2, 3, 4] }, '/a', { op: 'trim', start: 1, stop: 2 }, 2, { a: [2, 3] }],
    [{ a: ['x', 'y'] }, '/a', { op: 'indexOf', value: 'y' }, 1, { a: ['x', 'y'] }],
    [{ a: ['x'] }, '/a', { op: 'indexOf', value: 'z' }, -1, { a: ['x'] }],
    [{ b: true }, '/b', { op: 'toggle' }, false, { b: false }],
    [{ o: { a: 1 } }, '/o', { op: 'clear' }, {}, { o: {} }],
    [{ n: 9 }, '/n', { op: 'clear' }, 0, { n: 0 }],
    [{ o: { n: 1 } }, '', { op: 'incr', by: 1, path: '/o/n' }, 2, { o: { n: 2 } }]
  ])('%j at %s with %j answers %j', async (document, pointer, operation, result, after) => {
    const key = await documentWith(document)
    const response = await operate(app, `/docs/${key}${pointer}`, operation)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ result })
    expect(response.headers.etag).toMatch(/^"\d+"$/)
    expect((await get(app, `/docs/${key}`)).json()).toEqual(after)
  })

  it('keeps exact digits, in and out', async () => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, '{"n":9007199254740993,"a":[]}')
    const incr = await send(app, 'POST', `/docs/${key}/n`, '{"op":"incr","by":2}')
    expect(incr.body).toBe('{"result":9007199254740995}')
    await send(app, 'POST', `/docs/${key}/a`, '{"op":"push","values":[12345678901234567890,1.0]}')
    expect((await get(app, `/docs/${key}/a`)).body).toBe('[12345678901234567890,1.0]')
  })
})

describe('POST a list of operations: ordered and atomic', () => {
  it('answers every result in order', async () => {
    const key = await documentWith({ views: 1, log: [], name: 'a' })
    const response = await operate(app, `/docs/${key}`, [
      { op: 'incr', path: '/views', by: 1 },
      { op: 'push', path: '/log', values: ['viewed'] },
      { op: 'append', path: '/name', value: 'b' },
      { op: 'incr', path: '/views', by: 10 }
    ])
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ results: [2, 1, 2, 12] })
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ views: 12, log: ['viewed'], name: 'ab' })
  })

  it('changes nothing when one fails, and names it', async () => {
    const key = await documentWith({ n: 1, s: 'text', a: [] })
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await operate(app, `/docs/${key}`, [
      { op: 'incr', path: '/n', by: 1 },
      { op: 'push', path: '/a', values: [1] },
      { op: 'incr', path: '/s', by: 1 }
    ])
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_VALUE_TYPE', operation: 2, pointer: '/s' })
    expect(response.json().detail).toContain('string')
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })
})

describe('operation errors', () => {
  it.each([
    ['{"s":"x"}', '/s', { op: 'incr', by: 1 }, 'DOCS_ERR_VALUE_TYPE'],
    ['{"n":1}', '/n', { op: 'push', values: [1] }, 'DOCS_ERR_VALUE_TYPE'],
    ['{"n":1}', '/n', { op: 'toggle' }, 'DOCS_ERR_VALUE_TYPE'],
    ['{"n":1}', '/n', { op: 'append', value: 'x' }, 'DOCS_ERR_VALUE_TYPE'],
    ['{"s":"x"}', '/s', { op: 'clear' }, 'DOCS_ERR_VALUE_TYPE'],
    ['{"o":{"a":1}}', '/o', { op: 'indexOf', value: 1 }, 'DOCS_ERR_VALUE_TYPE'],
    ['{"b":true}', '/b', { op: 'mult', by: 2 }, 'DOCS_ERR_VALUE_TYPE'],
    ['{"a":[]}', '/a', { op: 'pop' }, 'DOCS_ERR_OPERATION_FAILED'],
    ['{"a":[1]}', '/a', { op: 'insert', index: 5, values: [1] }, 'DOCS_ERR_OPERATION_FAILED'],
    ['{"n":9223372036854775807}', '/n', { op: 'incr', by: 1 }, 'DOCS_ERR_OPERATION_FAILED'],
    ['{"n":4611686018427387904}', '/n', { op: 'mult', by: 4 }, 'DOCS_ERR_OPERATION_FAILED'],
    ['{"f":1e308}', '/f', { op: 'mult', by: 10 }, 'DOCS_ERR_OPERATION_FAILED']
  ])('%s at %s with %j is 409 %s, and changes nothing', async (document, pointer, operation, code) => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, document)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await operate(app, `/docs/${key}${pointer}`, operation)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code, operation: 0 })
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })

  it.each([
    ['{"n":0}', '{"op":"incr","by":9223372036854775808}'],
    ['{"n":0}', '{"op":"incr","by":18446744073709551615}'],
    ['{"n":0}', '{"op":"mult","by":-9223372036854775809}'],
    ['{"n":12345678901234567890}', '{"op":"incr","by":1}'],
    ['{"n":-9223372036854775808}', '{"op":"incr","by":-1}']
  ])('%s with %s: integers whose result leaves the 64-bit integer range are 409, and change nothing', async (document, operation) => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, document)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await send(app, 'POST', `/docs/${key}/n`, operation)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_OPERATION_FAILED', operation: 0, pointer: '/n' })
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })

  it.each([
    ['{"n":5}', '{"op":"incr","by":1.5}', '6.5'],
    ['{"n":5.0}', '{"op":"incr","by":1}', '6.0'],
    ['{"n":9223372036854775806}', '{"op":"incr","by":1}', '9223372036854775807'],
    ['{"n":-4611686018427387904}', '{"op":"mult","by":2}', '-9223372036854775808']
  ])('%s with %s answers %s: integer arithmetic up to the range\'s edge, floats as floats', async (document, operation, result) => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, document)
    const response = await send(app, 'POST', `/docs/${key}/n`, operation)
    expect(response.statusCode).toBe(200)
    expect(response.body).toBe(`{"result":${result}}`)
  })

  it('is 404 for a missing location and 400 for a malformed operation', async () => {
    const key = await documentWith({ n: 1 })
    expect((await operate(app, `/docs/${key}/missing`, { op: 'incr', by: 1 })).statusCode).toBe(404)
    expect((await operate(app, `/docs/${uniqueKey()}`, { op: 'incr', by: 1 })).statusCode).toBe(404)
    for (const body of [{ op: 'incr' }, { op: 'incr', by: '1' }, { op: 'explode' }, { op: 'pop', index: 1.5 }, [], { op: 'incr', by: 1, extra: 1 }]) {
      const response = await operate(app, `/docs/${key}/n`, body)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_VALIDATION' })
    }
  })
})

describe('atomic counters', () => {
  it('50 clients incrementing one counter 100 times end at exactly 5000', async () => {
    const key = await documentWith({ counter: 0 })
    await Promise.all(Array.from({ length: 50 }, async () => {
      for (let i = 0; i < 100; i++) {
        const response = await operate(app, `/docs/${key}/counter`, { op: 'incr', by: 1 })
        expect(response.statusCode).toBe(200)
      }
    }))
    expect((await get(app, `/docs/${key}/counter`)).json()).toBe(5000)
  })

  it('honours If-Match and changes the ETag', async () => {
    const key = uniqueKey()
    const created = await put(app, `/docs/${key}`, { n: 0 })
    expect((await operate(app, `/docs/${key}/n`, { op: 'incr', by: 1 }, { 'if-match': '"1"' })).statusCode).toBe(412)
    const response = await operate(app, `/docs/${key}/n`, { op: 'incr', by: 1 }, { 'if-match': created.headers.etag as string })
    expect(response.statusCode).toBe(200)
    expect(response.headers.etag).not.toBe(created.headers.etag)
  })
})

describe('array operations that move many elements', () => {
  it('are refused before they run when they would move more than the work limit allows', async () => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, `{"a":[${Array(250_000).fill(0).join(',')}]}`)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await operate(app, `/docs/${key}/a`, { op: 'insert', index: 0, values: Array(1000).fill(1) })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_WORK_BYTES' })
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
    expect((await operate(app, `/docs/${key}/a`, { op: 'insert', index: -1, values: Array(1000).fill(1) })).statusCode).toBe(200)
    expect((await operate(app, `/docs/${key}/a`, { op: 'insert', index: 0, values: [1] })).statusCode).toBe(200)
  })
})
