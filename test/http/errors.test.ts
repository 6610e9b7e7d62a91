import { METHODS } from 'node:http'
import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, send, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp({ bodyLimit: 4096, maxDepth: 10 })
const redis = await connectRedis()

function expectProblem (response: Awaited<ReturnType<typeof get>>, status: number, code: string) {
  expect(response.statusCode).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  const problem = response.json()
  expect(problem).toMatchObject({ status, code })
  expect(problem.type).toMatch(/^\/problems\/[a-z-]+$/)
  expect(typeof problem.title).toBe('string')
  expect(typeof problem.detail).toBe('string')
  return problem
}

async function stored (key: string) {
  return redis.sendCommand(['JSON.GET', app.keyPrefix + key])
}

describe('bad bodies are refused and change nothing', () => {
  it.each([
    ['not JSON', '{"a":', 400, 'DOCS_ERR_INVALID_JSON'],
    ['trailing garbage (RedisJSON would accept it)', '"a"x', 400, 'DOCS_ERR_INVALID_JSON'],
    ['empty', '', 400, 'DOCS_ERR_INVALID_JSON'],
    ['a number beyond double range', '{"n":1e400}', 422, 'DOCS_ERR_UNSTORABLE_JSON'],
    ['a lone surrogate', '["\\ud800"]', 422, 'DOCS_ERR_UNSTORABLE_JSON'],
    ['nesting past the limit', '[[[[[[[[[[[1]]]]]]]]]]]', 422, 'DOCS_ERR_UNSTORABLE_JSON'],
    ['a body over the limit', JSON.stringify({ big: 'x'.repeat(5000) }), 413, 'DOCS_ERR_PAYLOAD_TOO_LARGE']
  ])('%s', async (_name, text, status, code) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { original: true })
    expectProblem(await send(app, 'PUT', `/docs/${key}`, text), status, code)
    expectProblem(await send(app, 'PATCH', `/docs/${key}`, text), status, code)
    expect(await stored(key)).toBe('{"original":true}')
  })

  it('refuses bytes that are not UTF-8 rather than alter them', async () => {
    const key = uniqueKey()
    const response = await app.inject({
      method: 'PUT', url: `/docs/${key}`, headers: { 'content-type': 'application/json' }, payload: Buffer.from([0x22, 0xc3, 0x28, 0x22])
    })
    expectProblem(response, 400, 'DOCS_ERR_INVALID_JSON')
    expect(await stored(key)).toBeNull()
  })

  it('counts the pointer towards the depth limit', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: { b: { c: {} } } })
    expectProblem(await put(app, `/docs/${key}/a/b/c/d`, [[[[[[[1]]]]]]]), 422, 'DOCS_ERR_UNSTORABLE_JSON')
    expect((await put(app, `/docs/${key}/a/b/c/d`, [[[[[[1]]]]]])).statusCode).toBe(201)
  })

  it('is 400 when PUT has no body', async () => {
    expectProblem(await app.inject({ method: 'PUT', url: `/docs/${uniqueKey()}` }), 400, 'DOCS_ERR_BAD_REQUEST')
  })
})

describe('media types', () => {
  it.each([
    ['PUT', 'text/plain'],
    ['PUT', 'application/merge-patch+json'],
    ['PUT', 'application/x-www-form-urlencoded'],
    ['PATCH', 'text/plain'],
    ['PATCH', 'application/xml'],
    ['POST', 'application/merge-patch+json'],
    ['PUT', 'application/json; charset=latin1']
  ] as const)('%s with %s is 415', async (method, contentType) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { original: true })
    expectProblem(await send(app, method, `/docs/${key}`, '{"a":1}', {}, contentType), 415, 'DOCS_ERR_UNSUPPORTED_MEDIA_TYPE')
    expect(await stored(key)).toBe('{"original":true}')
  })

  it('takes charset=utf-8', async () => {
    const response = await send(app, 'PUT', `/docs/${uniqueKey()}`, '{}', {}, 'application/json; charset=UTF-8')
    expect(response.statusCode).toBe(201)
  })
})

describe('malformed URLs', () => {
  it.each([
    ['/docs/%FF', 'bad percent-encoding in the key'],
    ['/docs/k/%E0%A4', 'bad percent-encoding in a segment'],
    ['/docs/k/%', 'a lone percent sign'],
    [`/docs/${'k'.repeat(1025)}`, 'a key over 1024 bytes'],
    ['/docs/a%00b', 'a control character in the key'],
    ['/docs/', 'an empty key'],
    ['/docs/k/a~2', 'a bad pointer escape']
  ])('%s (%s) is 400', async (url) => {
    expectProblem(await get(app, url), 400, 'DOCS_ERR_BAD_REQUEST')
    expectProblem(await put(app, url, 1), 400, 'DOCS_ERR_BAD_REQUEST')
  })

  it('takes a key of exactly 1024 bytes', async () => {
    const key = 'é'.repeat(512)
    expect((await put(app, `/docs/${encodeURIComponent(key)}`, 1)).statusCode).toBe(201)
    expect((await get(app, `/docs/${encodeURIComponent(key)}`)).json()).toBe(1)
    await redis.sendCommand(['DEL', app.keyPrefix + key])
  })
})

describe('routes and methods', () => {
  it('is 404 for an unknown route', async () => {
    expectProblem(await get(app, '/nowhere'), 404, 'DOCS_ERR_ROUTE_NOT_FOUND')
    expectProblem(await get(app, '/documents/x'), 404, 'DOCS_ERR_ROUTE_NOT_FOUND')
  })

  // Every method Node parses (CONNECT, which takes the socket, is in server-problems.test.ts).
  const lacking = METHODS.filter((method) => !['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS', 'CONNECT'].includes(method))
  it.each(lacking)('is 405 with Allow for %s', async (method) => {
    for (const url of [`/docs/${uniqueKey()}`, `/docs/${uniqueKey()}/a/b`, '/health', '/schemas']) {
      const response = await app.inject({ method: method as 'GET', url })
      expectProblem(response, 405, 'DOCS_ERR_METHOD_NOT_ALLOWED')
      expect(response.headers.allow).toMatch(/^GET, HEAD/)
    }
  })

  it('is 404 for a method on no route', async () => {
    expectProblem(await app.inject({ method: 'PROPFIND' as 'GET', url: '/nowhere' }), 404, 'DOCS_ERR_ROUTE_NOT_FOUND')
  })

  it('answers OPTIONS with Allow', async () => {
    const response = await app.inject({ method: 'OPTIONS', url: `/docs/${uniqueKey()}/a` })
    expect(response.statusCode).toBe(204)
    expect(response.headers.allow).toBe('GET, HEAD, PUT, PATCH, POST, DELETE')
  })
})

describe('the key namespace', () => {
  it('is 409 for a key in the namespace that is not a JSON document, and leaves it alone', async () => {
    const key = uniqueKey()
    await redis.set(app.keyPrefix + key, 'plain string')
    for (const response of [
      await get(app, `/docs/${key}`),
      await get(app, `/docs/${key}/a`),
      await put(app, `/docs/${key}`, { a: 1 }),
      await put(app, `/docs/${key}/a`, 1),
      await send(app, 'PATCH', `/docs/${key}`, '{"a":1}'),
      await app.inject({ method: 'DELETE', url: `/docs/${key}` })
    ]) {
      expectProblem(response, 409, 'DOCS_ERR_WRONG_TYPE')
    }
    expect(await redis.get(app.keyPrefix + key)).toBe('plain string')
  })

  it('reaches nothing outside the prefix', async () => {
    const outside = `outside-${uniqueKey()}`
    await redis.sendCommand(['JSON.SET', outside, '$', '{"secret":true}'])
    for (const url of [`/docs/${outside}`, `/docs/..%2F${outside}`, `/docs/%2A`, `/docs/${encodeURIComponent('*')}`]) {
      expect((await get(app, url)).statusCode).toBe(404)
    }
    await put(app, `/docs/${outside}`, { mine: true })
    expect(await redis.sendCommand(['JSON.GET', outside])).toBe('{"secret":true}')
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + outside])).toBe('{"mine":true}')
    await redis.del(outside)
  })
})

describe('every error is RFC 9457 problem+json', () => {
  it('carries type, title, status, detail, code and the request\'s id, and no stack', async () => {
    const response = await get(app, `/docs/${uniqueKey()}`)
    const problem = expectProblem(response, 404, 'DOCS_ERR_NOT_FOUND')
    expect(Object.keys(problem).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type'])
    expect(problem.requestId).toBe(response.headers['x-request-id'])
  })
})
