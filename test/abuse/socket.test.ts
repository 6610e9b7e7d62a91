import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { withKnownFindings } from './known-findings.js'
import { exchange, request, type Exchange, type RawResponse } from './raw-http.js'
import { documentKeys, propertyOptions, runCase, startRig, timeoutFor, type Answer } from './rig.js'
import { seedDocument } from './send.js'

/**
 * What only a real socket shows: framing, pipelining, bytes no client library sends, slow clients. Every
 * response must arrive whole, and a connection must end or go on serving (a follow-up request on it is
 * answered): no partial writes, no wedged connections.
 */
const rig = await startRig()
let port = 0

beforeAll(async () => {
  await rig.app.listen({ host: '127.0.0.1', port: 0 })
  port = (rig.app.server.address() as AddressInfo).port
  for (const key of ['p0', 'p1', 'p2', 'big']) {
    expect(await seedDocument(rig, key, key === 'big' ? JSON.stringify({ text: 'x'.repeat(900_000) }) : `{"key":"${key}"}`)).toBe(true)
  }
})

/**
 * The answers to what Node's HTTP parser refuses (fastify's client error handler: a 400 or 431 as
 * `{"error":...,"statusCode":400}`, closing the connection) are not problem+json yet: known, and being
 * fixed elsewhere. The rest of each case is still checked.
 */
function parserLevel (answer: Answer): boolean {
  return !withKnownFindings && [400, 408, 413, 414, 431, 505].includes(answer.statusCode) &&
    !String(answer.headers['content-type']).startsWith('application/problem+json') &&
    (answer.body === '' || answer.body.includes(`"statusCode":${answer.statusCode}`))
}

/** Whole responses, nothing cut off; then the connection is closed or answers a follow-up request. */
async function expectSound (label: string, { responses, leftover, closed, socket }: Exchange & { socket: import('node:net').Socket }): Promise<void> {
  expect(leftover.length, `${label}: ${leftover.length} bytes of a response cut off: ${leftover.toString('latin1').slice(0, 200)}`).toBe(0)
  for (const response of responses) {
    const length = response.headers['content-length']
    if (length !== undefined) expect(Buffer.byteLength(response.body), `${label}: body as long as Content-Length`).toBe(Number(length))
  }
  if (!closed) {
    const followUp = await new Promise<RawResponse[] | 'closed'>((resolve) => {
      const received: Buffer[] = []
      const timer = setTimeout(() => resolve([]), 5000)
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk)
        if (Buffer.concat(received).includes('"status":"ok"')) { clearTimeout(timer); resolve([{ statusCode: 200, headers: {}, body: '', head: '' }]) }
      })
      socket.on('close', () => { clearTimeout(timer); resolve('closed') })
      socket.write(request('GET', '/health'))
    })
    expect(followUp === 'closed' || followUp.length === 1, `${label}: the connection neither closed nor answered a follow-up in 5 s`).toBe(true)
  }
  socket.destroy()
}

const framings: Array<[string, string | Buffer]> = [
  ['Content-Length and Transfer-Encoding together', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n2\r\n{}\r\n0\r\n\r\n'],
  ['two different Content-Lengths', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\nContent-Type: application/json\r\n\r\n{}1'],
  ['a negative Content-Length', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\nContent-Type: application/json\r\n\r\n{}'],
  ['a Content-Length that is not a number', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nContent-Length: 2x\r\nContent-Type: application/json\r\n\r\n{}'],
  ['a body longer than its Content-Length', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}garbage that is not a request\r\n\r\n'],
  ['a chunk size that is not hex', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
  ['a chunk size past 64 bits', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n'],
  ['a long chunk extension', `PUT /docs/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`],
  ['chunked, well-formed', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n1\r\n{\r\n1\r\n}\r\n0\r\n\r\n'],
  ['Transfer-Encoding gzip, chunked', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\nContent-Type: application/json\r\n\r\n2\r\n{}\r\n0\r\n\r\n'],
  ['HTTP/1.0 without Host', 'GET /docs/p0 HTTP/1.0\r\n\r\n'],
  ['an absolute-form target', 'GET http://localhost/docs/p0 HTTP/1.1\r\nHost: localhost\r\n\r\n'],
  ['a target of *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['two spaces in the request line', 'GET  /docs/p0 HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a lower-case method', 'get /docs/p0 HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['an unknown method', 'BREW /docs/p0 HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a header without a colon', 'GET /docs/p0 HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n'],
  ['an obsolete folded header', 'GET /docs/p0 HTTP/1.1\r\nHost: x\r\nIf-None-Match: "1",\r\n "2"\r\n\r\n'],
  ['a NUL in a header value', 'GET /docs/p0 HTTP/1.1\r\nHost: x\r\nPrefer: a\u0000b\r\n\r\n'],
  ['bare line feeds', 'GET /docs/p0 HTTP/1.1\nHost: x\n\n'],
  ['raw UTF-8 and quotes in the target', Buffer.from('GET /docs/p0/"é[$]\' HTTP/1.1\r\nHost: x\r\n\r\n')],
  ['a control character in the target', 'GET /docs/p0\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a 100 KB target', `GET /docs/${'k'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['a 70 KB header section', `GET /docs/p0 HTTP/1.1\r\nHost: x\r\nX-Long: ${'x'.repeat(70_000)}\r\n\r\n`],
  ['2000 headers', `GET /docs/p0 HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 2000 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`],
  ['Expect: 100-continue', 'PUT /docs/f HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}'],
  ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ['a TLS client hello', Buffer.from('16030100a5010000a103035b', 'hex')],
  ['an empty line before the request', '\r\nGET /docs/p0 HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['HTTP/1.2', 'GET /docs/p0 HTTP/1.2\r\nHost: x\r\n\r\n'],
  ['HTTP/9.9', 'GET /docs/p0 HTTP/9.9\r\nHost: x\r\n\r\n']
]

describe('any framing is answered whole or refused, and no connection is left wedged', () => {
  for (const [name, bytes] of framings) {
    it(name, async () => {
      await runCase(rig, name, documentKeys(rig, 'f'), async () => {
        const result = await exchange(port, bytes, { expect: 1, waitMs: 5000 })
        await expectSound(name, result)
        const first = result.responses[0]
        expect(first !== undefined || result.closed, `${name}: no answer in 5 s, and the connection still open`).toBe(true)
        return first ?? { statusCode: 400, headers: {}, body: '' }
      }, { inFlight: parserLevel })
    })
  }
})

/** Requests to pipeline, each with what its answer must show: the key it reads, or its status. */
const pipelined = fc.constantFrom(
  { bytes: request('GET', '/docs/p0'), shows: '"key":"p0"' },
  { bytes: request('GET', '/docs/p1'), shows: '"key":"p1"' },
  { bytes: request('GET', '/docs/p2?pointer=/key'), shows: '"p2"' },
  { bytes: request('GET', '/docs/missing'), shows: 'DOCS_ERR_NOT_FOUND' },
  { bytes: request('PUT', '/docs/f', { 'content-type': 'application/json' }, '{"key":"f"}'), shows: '"key":"f"' },
  { bytes: request('PUT', '/docs/f', { 'content-type': 'application/json' }, '{"a":1,"a":2}'), shows: 'DOCS_ERR_INVALID_JSON' },
  { bytes: request('GET', '/docs/p0?jsonpath=%24.key'), shows: '["p0"]' },
  { bytes: request('GET', '/health'), shows: '"status":"ok"' }
)

describe('pipelined requests', () => {
  it('are all answered, whole, each with its own answer', async () => {
    await fc.assert(fc.asyncProperty(fc.array(pipelined, { minLength: 2, maxLength: 12 }), async (requests) => {
      await runCase(rig, `pipeline of ${requests.length}`, documentKeys(rig, 'f'), async () => {
        const result = await exchange(port, requests.map((entry) => entry.bytes).join(''), { expect: requests.length, waitMs: 5000 })
        await expectSound('pipeline', result)
        const { responses } = result
        // The server may close a connection after an answer, saying so; the requests after it go unanswered.
        const closing = responses.findIndex((response) => /close/i.test(String(response.headers.connection)))
        expect(responses, `one answer per request, up to one that closes (${responses.map((r) => r.head.split('\r\n')[0]).join('; ')})`)
          .toHaveLength(closing === -1 ? requests.length : closing + 1)
        const inOrder = responses.every((response, index) => response.body.includes(requests[index]!.shows))
        if (withKnownFindings) expect(inOrder, 'answers in the order of the requests').toBe(true)
        return responses.find((response) => response.statusCode >= 500) ?? responses[0]!
      })
    }), propertyOptions(60))
  }, timeoutFor(60))
})

describe('slow clients', () => {
  it('a request sent a few bytes at a time is answered as any other', async () => {
    const body = '{"slow":true}'
    const result = await exchange(port, request('PUT', '/docs/f', { 'content-type': 'application/json' }, body),
      { expect: 1, trickle: { bytes: 7, everyMs: 20 } })
    await expectSound('trickled', result)
    expect(result.responses[0]?.statusCode).toBe(201)
    await rig.redis.del(documentKeys(rig, 'f'))
  })

  it('a client that reads a large answer late still gets it whole', async () => {
    const result = await exchange(port, request('GET', '/docs/big'), { expect: 1, waitMs: 10_000 })
    await expectSound('late reader', result)
    expect(result.responses[0]?.body.length).toBe(JSON.stringify({ text: 'x'.repeat(900_000) }).length)
  })
})
