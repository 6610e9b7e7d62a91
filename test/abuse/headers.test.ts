import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hostileText } from './generators/addresses.js'
import { contentType } from './generators/bodies.js'
import { documentKeys, propertyOptions, runCase, startRig, timeoutFor } from './rig.js'
import { documentAlong, inject, seedDocument, type Method } from './send.js'

const rig = await startRig()

const KEY = 'headed'
const WELL_FORMED_ID = /^[A-Za-z0-9._:+/=@-]{1,128}$/

/** Entity-tag lists around the document's current tag (`now`): matching, weak, garbled, long. */
const entityTagList = (now: string) => fc.oneof(
  fc.constantFrom('*', now, `W/${now}`, `${now}, "1"`, `"1", ${now}`, ` ${now} `, `${now},`, `,${now}`, `*, ${now}`, `"*"`,
    '"', '""', '', ' ', ',', '"1" "2"', '"1",,"2"', `W/"1", W/${now}`, now.slice(1), `${now}x`, `"${'9'.repeat(40)}"`,
    `"${'x'.repeat(60_000)}"`, Array.from({ length: 1000 }, (_, i) => `"${i}"`).join(', '), `${'"1", '.repeat(5000)}${now}`,
    '"\u0080\u00ff"', '"\u0000"', '"a\tb"'),
  hostileText(12)
)

const prefer = fc.oneof(
  fc.constantFrom('return=minimal', 'return="minimal"', 'RETURN = MINIMAL', 'return=representation', 'return=minimal, respond-async',
    'handling=strict; return=minimal', 'return', 'return=', '=minimal', `return=minimal${' '.repeat(10_000)}`, 'return=minimal'.repeat(1000)),
  hostileText(12)
)

/** Any other header a client may send, with a long or hostile value. */
const strayHeader: fc.Arbitrary<[string, string]> = fc.tuple(
  fc.constantFrom('accept', 'accept-encoding', 'x-forwarded-for', 'x-request-id', 'range', 'expect', 'cookie', 'origin', 'if-modified-since', 'x-custom'),
  fc.oneof(hostileText(20), fc.constantFrom('x'.repeat(60_000), '100-continue', 'bytes=0-1', 'gzip, br, *;q=0', '*/*', 'application/json;q=0'))
)

/** A body each write would take, so that the headers decide the answer. */
const BODIES: Partial<Record<Method, string>> = { PUT: '{"n":2}', PATCH: '{"n":3}', POST: '{"op":"incr","path":"/n","by":1}' }

const headerRequest = fc.record({
  method: fc.constantFrom<Method>('GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'),
  ifMatch: fc.option(fc.constant(null), { freq: 2 }),
  ifNoneMatch: fc.option(fc.constant(null), { freq: 2 }),
  prefer: fc.option(prefer, { freq: 2 }),
  contentType: fc.option(contentType, { freq: 2 }),
  stray: fc.option(strayHeader, { freq: 3 })
})

describe('any request headers keep the contract', () => {
  it('answers preconditions, preferences and media types of any shape without a 5xx', async () => {
    await fc.assert(fc.asyncProperty(headerRequest, fc.nat(), fc.nat(), async (request, matchSeed, noneMatchSeed) => {
      expect(await seedDocument(rig, KEY, documentAlong([], false))).toBe(true)
      const etag = String((await inject(rig, { method: 'GET', url: `/docs/${KEY}` })).headers.etag)
      const [ifMatch] = fc.sample(entityTagList(etag), { numRuns: 1, seed: matchSeed })
      const [ifNoneMatch] = fc.sample(entityTagList(etag), { numRuns: 1, seed: noneMatchSeed })
      const headers: Record<string, string> = {}
      if (request.ifMatch === null) headers['if-match'] = ifMatch!
      if (request.ifNoneMatch === null) headers['if-none-match'] = ifNoneMatch!
      if (request.prefer !== null) headers.prefer = request.prefer
      headers['content-type'] = request.contentType ?? (request.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json')
      if (request.stray !== null) headers[request.stray[0]] = request.stray[1]
      const withBody = ['PUT', 'PATCH', 'POST'].includes(request.method)
      const label = `${request.method} ${JSON.stringify(headers).slice(0, 300)}`
      const { answer } = await runCase(rig, label, documentKeys(rig, KEY), () => inject(rig, {
        method: request.method, url: `/docs/${KEY}`, headers, ...(withBody ? { body: BODIES[request.method] } : {})
      }))
      if (answer.statusCode === 304) expect(answer.body).toBe('')
      // Every answer has a well-formed id: the client's when it sent one well formed, a generated one otherwise.
      const requestId = String(answer.headers['x-request-id'])
      expect(requestId).toMatch(WELL_FORMED_ID)
      const sent = request.stray?.[0] === 'x-request-id' ? request.stray[1] : undefined
      if (sent !== undefined) expect(requestId === sent).toBe(WELL_FORMED_ID.test(sent))
    }), propertyOptions(300))
  }, timeoutFor(300))
})
