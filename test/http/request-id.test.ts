import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { buildTestApp, get, overSocket, put, send, testConfig, uniqueKey } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { startOwnRedis } from '../helpers/local-redis.js'
import { RawConnection, rawRequest } from '../helpers/raw-http.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const app = await buildTestApp({ bodyLimit: 4096 })

type Answer = { statusCode: number, headers: Record<string, unknown>, body: string }

/** The answer's id; for a problem, the same id in its body too. */
function idOf (response: Answer): string {
  const id = response.headers['x-request-id']
  expect(typeof id).toBe('string')
  if (String(response.headers['content-type']).startsWith('application/problem+json')) {
    expect(JSON.parse(response.body).requestId).toBe(id)
  }
  return id as string
}

describe('a request id', () => {
  it('is generated (a UUID, new for each request) when the client sends none', async () => {
    const key = uniqueKey()
    const first = idOf(await put(app, `/docs/${key}`, { a: 1 }))
    const second = idOf(await get(app, `/docs/${key}`))
    expect(first).toMatch(UUID)
    expect(second).toMatch(UUID)
    expect(first).not.toBe(second)
  })

  it.each([
    ['a UUID', '0f8fad5b-d9cb-469f-a165-70867728950e'],
    ['a W3C traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['base64', 'aGVsbG8/d29ybGQ+Kw=='],
    ['one character', 'x'],
    ['128 characters', 'a'.repeat(128)],
    ['the whole safe set', 'AZaz09._:+/=@-']
  ])('is the client\'s X-Request-Id when well formed: %s', async (_name, given) => {
    expect(idOf(await get(app, `/docs/${uniqueKey()}`, { 'x-request-id': given }))).toBe(given)
  })

  it.each([
    ['empty', ''],
    ['129 characters', 'a'.repeat(129)],
    ['64 KiB', 'a'.repeat(60_000)],
    ['a space', 'a b'],
    ['a quote', 'a"b'],
    ['a backslash', 'a\\b'],
    ['a brace (JSON in a log line)', '{"level":60}'],
    ['a comma (two headers joined)', 'a, b'],
    ['a tab', 'a\tb'],
    ['a character outside ASCII', 'caf\u00e9']
  ])('is replaced by a generated one when malformed: %s', async (_name, given) => {
    const response = await app.inject({ method: 'GET', url: `/docs/${uniqueKey()}`, headers: { 'x-request-id': given } })
    expect(idOf(response)).toMatch(UUID)
  })

  it('is replaced when the client sends the header twice', async () => {
    const connection = await RawConnection.open(app)
    connection.send(`GET /livez HTTP/1.1\r\nhost: localhost\r\nx-request-id: one\r\nx-request-id: two\r\n\r\n`)
    const [response] = await connection.responses(1)
    expect(response!.status).toBe(200)
    expect(response!.headers['x-request-id']).toMatch(UUID)
  })
})

describe('every answer carries its request id', () => {
  const given = { 'x-request-id': 'trace-42' }

  it.each([
    ['a read', () => get(app, '/livez', given), 200],
    ['a write', () => put(app, `/docs/${uniqueKey()}`, { a: 1 }, given), 201],
    ['a HEAD', () => app.inject({ method: 'HEAD', url: '/livez', headers: given }), 200],
    ['an unknown route (404)', () => get(app, '/nowhere', given), 404],
    ['a missing document (404)', () => get(app, `/docs/${uniqueKey()}`, given), 404],
    ['a method the route lacks (405)', () => app.inject({ method: 'PROPFIND', url: '/livez', headers: given }), 405],
    ['a bad query (400)', () => get(app, '/docs?limit=0', given), 400],
    ['a body of another media type (415)', () => send(app, 'PUT', `/docs/${uniqueKey()}`, 'x', given, 'text/plain'), 415],
    ['a body over the limit (413)', () => send(app, 'PUT', `/docs/${uniqueKey()}`, JSON.stringify('x'.repeat(5000)), given), 413],
    ['a malformed body (400)', () => send(app, 'PUT', `/docs/${uniqueKey()}`, '{', given), 400],
    ['a bad percent-encoding fastify refuses before routing (400)', () => get(app, '/docs/%E0%A4%A', given), 400]
  ])('%s', async (_name, request, status) => {
    const response = await request()
    expect(response.statusCode).toBe(status)
    expect(idOf(response)).toBe('trace-42')
  })

  it('a 304', async () => {
    const key = uniqueKey()
    const etag = (await put(app, `/docs/${key}`, { a: 1 })).headers.etag as string
    const response = await get(app, `/docs/${key}`, { 'if-none-match': etag, ...given })
    expect(response.statusCode).toBe(304)
    expect(idOf(response)).toBe('trace-42')
  })

  it('a cached read and a cached HEAD (answered from the answer cache)', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    await get(app, `/docs/${key}`)
    const recalled = app.answerCache.hits
    expect(idOf(await get(app, `/docs/${key}`, given))).toBe('trace-42')
    expect(idOf(await app.inject({ method: 'HEAD', url: `/docs/${key}`, headers: given }))).toBe('trace-42')
    expect(app.answerCache.hits).toBe(recalled + 2)
  })

  it('a 503 when Redis is down', async () => {
    const redis = await startOwnRedis()
    const down = await buildTestApp({ redis: { socketPath: redis.socketPath }, redisTimeoutMs: 500 })
    await redis.stop()
    const response = await get(down, `/docs/${uniqueKey()}`, given)
    expect(response.statusCode).toBe(503)
    expect(idOf(response)).toBe('trace-42')
  })

  it('a problem the HTTP server answers below fastify (an HTTP/1.1 request without Host)', async () => {
    const connection = await RawConnection.open(app)
    connection.send('GET /livez HTTP/1.1\r\nx-request-id: below-1\r\n\r\n')
    const [response] = await connection.responses(1)
    expect(response!.status).toBe(400)
    expect(response!.headers['x-request-id']).toBe('below-1')
    expect(response!.json()).toMatchObject({ code: 'DOCS_ERR_MALFORMED_HTTP', requestId: 'below-1' })
  })

  it('a 503 of the connection limit, generated when the client sent none', async () => {
    const limited = await buildTestApp({ http: { ...testConfig().http, maxConnections: 1 } })
    const holder = await RawConnection.open(limited)
    holder.send(rawRequest('PUT', `/docs/${uniqueKey()}`, { 'content-type': 'application/json', 'content-length': '10' }) + '{')
    await expect.poll(() => limited.connections.idle).toBe(0)
    const refused = await RawConnection.open(limited)
    refused.send(rawRequest('GET', '/livez'))
    const [response] = await refused.responses(1)
    expect(response!.status).toBe(503)
    expect(response!.headers['x-request-id']).toMatch(UUID)
    expect(response!.json().requestId).toBe(response!.headers['x-request-id'])
  })

  it('a plain GET over a socket that the answer cache serves', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    await overSocket(app, 'GET', `/docs/${key}`)
    const response = await overSocket(app, 'GET', `/docs/${key}`, given)
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-request-id']).toBe('trace-42')
  })
})

describe('the log lines of a request', () => {
  it('all carry its id as reqId, and never the request id of another', async () => {
    const lines: Array<Record<string, unknown>> = []
    const stream = new Writable({
      write (chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
        callback()
      }
    })
    const redis = await startOwnRedis()
    const logged = await buildApp(testConfig({ redis: { socketPath: redis.socketPath }, logRequests: true, redisTimeoutMs: 500 }),
      { logger: pino({ level: 'info' }, stream) })
    whenDone(() => logged.close())
    await redis.stop()
    lines.length = 0
    // A 503 (its error logged by the error handler), beside a plain read of another id.
    const [failed, other] = await Promise.all([
      get(logged, `/docs/${uniqueKey()}`, { 'x-request-id': 'failing-1' }),
      get(logged, '/livez', { 'x-request-id': 'other-2' })
    ])
    expect(failed.statusCode).toBe(503)
    expect(other.statusCode).toBe(200)
    const byId = (id: string) => lines.filter((line) => line.reqId === id).map((line) => line.msg)
    expect(byId('failing-1')).toEqual(expect.arrayContaining(['incoming request', 'request failed', 'request completed']))
    expect(byId('other-2')).toEqual(expect.arrayContaining(['incoming request', 'request completed']))
    const ofRequests = lines.filter((line) => line.req !== undefined || line.res !== undefined || line.msg === 'request failed')
    expect(ofRequests.length).toBeGreaterThanOrEqual(5)
    for (const line of ofRequests) expect(['failing-1', 'other-2']).toContain(line.reqId)
  })
})
