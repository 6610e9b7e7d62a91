import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, put, uniqueKey } from '../helpers/app.js'
import { RawConnection, rawRequest, type RawResponse } from '../helpers/raw-http.js'

const app = await buildTestApp()
const redis = await connectRedis()
const json = { 'content-type': 'application/json' }

function expectProblem (response: RawResponse | undefined, status: number, code: string) {
  expect(response?.status).toBe(status)
  expect(response?.headers['content-type']).toMatch(/^application\/problem\+json/)
  const problem = response!.json()
  expect(problem).toMatchObject({ status, code, type: expect.stringMatching(/^\/problems\//) })
  expect(typeof problem.detail).toBe('string')
  return problem
}

/** Sends raw bytes on a new connection: the answers, once the server has closed it. */
async function exchange (bytes: string): Promise<{ answers: RawResponse[], connection: RawConnection }> {
  const connection = await RawConnection.open(app)
  connection.send(bytes)
  expect(await connection.whenClosed(5000)).toBeDefined()
  return { answers: [...connection.received], connection }
}

describe('messages Node\'s parser refuses are answered as problems, and close the connection', () => {
  it.each([
    ['a method HTTP does not define', 'FOO /docs/k HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['a control byte in a header value', 'GET /health HTTP/1.1\r\nHost: a\r\nX-A: a\u0001b\r\n\r\n'],
    ['Content-Length beside Transfer-Encoding', 'POST /docs/k HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['two Content-Length fields', 'PUT /docs/k HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['a chunk size that is not hexadecimal', 'PUT /docs/k HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['an obsolete line folding', 'GET /health HTTP/1.1\r\nHost: a\r\nX-A: a\r\n b\r\n\r\n'],
    ['bare line feeds', 'GET /health HTTP/1.1\nHost: a\n\n'],
    ['an HTTP/2 connection preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['an HTTP/3.0 request line', 'GET /health HTTP/3.0\r\nHost: a\r\n\r\n']
  ])('%s is 400 DOCS_ERR_MALFORMED_HTTP', async (_name, bytes) => {
    const { answers } = await exchange(bytes)
    expect(answers).toHaveLength(1)
    expectProblem(answers[0], 400, 'DOCS_ERR_MALFORMED_HTTP')
    expect(answers[0]!.headers['connection']).toBe('close')
  })

  it('header fields over 64 KiB are 431 DOCS_ERR_HEADERS_TOO_LARGE', async () => {
    const { answers } = await exchange(rawRequest('GET', '/docs/k', { 'if-none-match': `"${'a'.repeat(70_000)}"` }))
    expectProblem(answers[0], 431, 'DOCS_ERR_HEADERS_TOO_LARGE')
  })

  it('answers the requests before a malformed one first, in order', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const { answers } = await exchange(rawRequest('GET', `/docs/${key}`) + rawRequest('PUT', `/docs/${key}/b`, json, '2') + 'FOO / HTTP/1.1\r\n\r\n')
    expect(answers.map((answer) => answer.status)).toEqual([200, 201, 400])
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe('{"a":1,"b":2}')
  })
})

describe('what HTTP/1.1 asks of every request (RFC 9112)', () => {
  it.each([
    ['no Host in HTTP/1.1', 'GET /health HTTP/1.1\r\n\r\n'],
    ['two Host fields', 'GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'],
    ['a Host that is no host', 'GET /health HTTP/1.1\r\nHost: a b/c\r\n\r\n'],
    ['HTTP/0.9', 'GET /health\r\n\r\n'],
    ['a Transfer-Encoding not ending in chunked', 'PUT /docs/k HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n{}'],
    ['a transfer coding the service cannot decode', 'PUT /docs/k HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'],
    ['an asterisk target outside OPTIONS', 'GET * HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['CONNECT to an authority', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']
  ])('%s is 400 DOCS_ERR_MALFORMED_HTTP', async (_name, bytes) => {
    const { answers } = await exchange(bytes)
    expect(answers).toHaveLength(1)
    expectProblem(answers[0], 400, 'DOCS_ERR_MALFORMED_HTTP')
  })

  it('takes HTTP/1.0 without a Host', async () => {
    const { answers } = await exchange('GET /health HTTP/1.0\r\n\r\n')
    expect(answers[0]?.status).toBe(200)
  })

  it('takes an absolute-form target as its path and query (section 3.2.2)', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: [1, 2] })
    const connection = await RawConnection.open(app)
    connection.send(rawRequest('GET', `http://example.com/docs/${key}/a/1`) + rawRequest('GET', `HTTPS://example.com:8443/docs/${key}?pointer=/a/0`))
    expect((await connection.responses(2)).map((answer) => answer.body)).toEqual(['2', '1'])
  })

  it('answers CONNECT to a path as any method the route lacks: 405 with Allow, then closes', async () => {
    const { answers } = await exchange(rawRequest('CONNECT', `/docs/${uniqueKey()}`))
    expectProblem(answers[0], 405, 'DOCS_ERR_METHOD_NOT_ALLOWED')
    expect(answers[0]!.headers['allow']).toBe('GET, HEAD, PUT, PATCH, POST, DELETE')
  })

  it('answers a request offering an upgrade as if it did not, then closes: what followed it is not run', async () => {
    const key = uniqueKey()
    const { answers } = await exchange(rawRequest('PUT', `/docs/${key}`, { ...json, connection: 'upgrade', upgrade: 'websocket' }, '{"a":1}') +
      rawRequest('PUT', `/docs/${key}`, json, '{"b":2}'))
    expect(answers.map((answer) => answer.status)).toEqual([201])
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe('{"a":1}')
  })

  it('sends 100 Continue when an expecting request\'s turn comes, and ignores other expectations', async () => {
    const key = uniqueKey()
    const connection = await RawConnection.open(app)
    connection.send(rawRequest('GET', '/health') + rawRequest('PUT', `/docs/${key}`, { ...json, expect: '100-continue', 'content-length': '7' }))
    const [health, interim] = await connection.responses(2)
    expect([health?.status, interim?.status]).toEqual([200, 100])
    connection.send('{"a":1}' + rawRequest('PUT', `/docs/${key}/b`, { ...json, expect: 'something-else' }, '2'))
    expect((await connection.responses(4)).slice(2).map((answer) => answer.status)).toEqual([201, 201])
  })
})
