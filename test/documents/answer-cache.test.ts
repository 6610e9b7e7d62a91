import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, overSocket, put, uniqueKey, type SocketResponse } from '../helpers/app.js'

const app = await buildTestApp({ cacheMaxEntries: 1000 })

type Read = (target: FastifyInstance, method: 'GET' | 'HEAD', url: string, headers?: Record<string, string>) => Promise<SocketResponse>

const transports: Array<[string, Read]> = [
  ['over a socket', overSocket],
  ['through inject', async (target, method, url, headers = {}) => {
    const response = await target.inject({ method, url, headers })
    return {
      statusCode: response.statusCode,
      headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)])),
      body: response.body,
      json: response.json
    }
  }]
]

/** The headers a repeated answer repeats: not its date, time left, connection or request id. */
function lasting ({
  date: _date, 'expires-in': _expiresIn, connection: _connection, 'keep-alive': _keepAlive, 'x-request-id': _requestId, ...headers
}: Record<string, string>) {
  return headers
}

describe.each(transports)('the answer cache, %s', (_transport, read) => {
  /** Reads a URL twice: the handler answers the first from Redis, the answer cache the second. */
  async function handlerThenCache (url: string, method: 'GET' | 'HEAD' = 'GET', headers: Record<string, string> = {}) {
    const byHandler = await read(app, 'GET', url)
    const hits = app.answerCache.hits
    const recalled = await read(app, method, url, headers)
    expect(app.answerCache.hits).toBe(hits + 1)
    return [byHandler, recalled] as const
  }

  it('answers what the handler answered: status, body and headers', async () => {
    const key = uniqueKey()
    // Past 16 Ki characters the body is sent as a Buffer: the long text's bytes must be the same.
    const long = 'é\u{1F600}x'.repeat(8 * 1024)
    await put(app, `/docs/${key}?ttl=100`, { name: 'é\u{1F600}', n: [1, 2.50], '': { 'a/b': null }, long })
    for (const url of [`/docs/${key}`, `/docs/${key}/name`, `/docs/${key}/n/1`, `/docs/${key}/`, `/docs/${key}//a~1b`,
      `/docs/${key}?pointer=/n`, `/docs/${key}/long`]) {
      const [byHandler, recalled] = await handlerThenCache(url)
      expect(recalled.statusCode).toBe(200)
      expect(recalled.body).toBe(byHandler.body)
      expect(lasting(recalled.headers)).toEqual(lasting(byHandler.headers))
      expect(Number(recalled.headers['content-length'])).toBe(Buffer.byteLength(recalled.body))
      expect(Number(recalled.headers['expires-in'])).toBeGreaterThanOrEqual(99)
      expect(Number(recalled.headers['expires-in'])).toBeLessThanOrEqual(Number(byHandler.headers['expires-in']))
    }
    expect(JSON.parse((await read(app, 'GET', `/docs/${key}/long`)).body)).toBe(long)
  })

  it('answers HEAD, and If-None-Match with 304 when it matches, as the handler does', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const url = `/docs/${key}`
    const [byHandler, head] = await handlerThenCache(url, 'HEAD')
    const etag = byHandler.headers['etag']!
    expect(head.statusCode).toBe(200)
    expect(head.headers['etag']).toBe(etag)
    expect(head.body).toBe('')

    const [, notModified] = await handlerThenCache(url, 'GET', { 'if-none-match': `"1", ${etag}` })
    expect(notModified.statusCode).toBe(304)
    expect(notModified.headers['etag']).toBe(etag)
    expect(notModified.body).toBe('')
    const [, headNotModified] = await handlerThenCache(url, 'HEAD', { 'if-none-match': etag })
    expect(headNotModified.statusCode).toBe(304)
    const [, changed] = await handlerThenCache(url, 'GET', { 'if-none-match': '"1"' })
    expect(changed.statusCode).toBe(200)
    expect(changed.body).toBe('{"a":1}')
  })

  it('answers only requests that pass validation: a malformed If-None-Match is still 400', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    await handlerThenCache(`/docs/${key}`)
    const hits = app.answerCache.hits
    const malformed = await read(app, 'GET', `/docs/${key}`, { 'if-none-match': 'unquoted' })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(app.answerCache.hits).toBe(hits)
  })

  it('leaves JSONPath queries to the handler, which bounds their cost every time', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { n: [1, 2] })
    const hits = app.answerCache.hits
    for (let round = 0; round < 3; round++) {
      expect((await read(app, 'GET', `/docs/${key}?jsonpath=$.n[*]`)).body).toBe('[1,2]')
    }
    expect(app.answerCache.hits).toBe(hits)
  })

  it('keeps nothing the handler refused', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const hits = app.answerCache.hits
    for (let round = 0; round < 2; round++) {
      expect((await read(app, 'GET', `/docs/${key}?jsonpath=$..[`)).statusCode).toBe(400)
      expect((await read(app, 'GET', `/docs/${key}/missing`)).statusCode).toBe(404)
      expect((await read(app, 'GET', `/docs/${key}/a?pointer=/a`)).statusCode).toBe(400)
      expect((await read(app, 'GET', `/docs/${uniqueKey()}`)).statusCode).toBe(404)
    }
    expect(app.answerCache.hits).toBe(hits)
  })
})

describe('the answer cache with the client-side cache off (CACHE_MAX_ENTRIES=0)', () => {
  it('keeps nothing, and every read is answered from Redis', async () => {
    const uncached = await buildTestApp({ cacheMaxEntries: 0 })
    const key = uniqueKey()
    await put(uncached, `/docs/${key}`, { a: 1 })
    for (let round = 0; round < 3; round++) {
      expect((await overSocket(uncached, 'GET', `/docs/${key}/a`)).body).toBe('1')
    }
    expect(uncached.answerCache.hits).toBe(0)
    expect(uncached.answerCache.recall(`/docs/${key}/a`)).toBeUndefined()
  })
})
