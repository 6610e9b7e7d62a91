import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memberName, pointerTokens, escapeToken, encodeSegment } from './generators/addresses.js'
import { anyBody, hostileJsonText, jsonPatchText, numberText, operationsText, plainJsonText } from './generators/bodies.js'
import { sameNumber } from './known-findings.js'
import { documentKeys, propertyOptions, runCase, startRig, timeoutFor, type Rig } from './rig.js'
import { documentAlong, inject, seedDocument, type HostileRequest } from './send.js'

const rig = await startRig()

/** What a document is in Redis: its text, its version record, and both keys' expiry instants. */
async function storedState (target: Rig, key: string) {
  const [doc, ver] = documentKeys(target, key) as [string, string]
  const { redis } = target
  return {
    text: await redis.sendCommand<string | null>(['JSON.GET', doc]),
    record: await redis.get(ver),
    docExpiry: await redis.sendCommand<number>(['PEXPIRETIME', doc]),
    recordExpiry: await redis.sendCommand<number>(['PEXPIRETIME', ver])
  }
}

const KEY = 'atomic'
const headers = (type: string, extra: Record<string, string>) => ({ 'content-type': type, ...extra })

/** Writes that often fail: hostile bodies, pointers and preconditions, against a seeded document. */
const hostileWrite: fc.Arbitrary<HostileRequest> = fc.record({
  kind: fc.constantFrom('PUT', 'MERGE', 'JSON-PATCH', 'POST', 'DELETE', 'TTL'),
  tokens: fc.oneof(fc.constantFrom<string[]>([], ['o'], ['a'], ['a', '0'], ['n'], ['s'], ['missing']), pointerTokens),
  condition: fc.option(fc.constantFrom<Record<string, string>>({ 'if-match': '"1"' }, { 'if-none-match': '*' }, { 'if-match': 'W/"1"' }, { 'if-match': 'garbage' }), { freq: 3 }),
  ttl: fc.option(fc.constantFrom('?ttl=60', '?ttl=0', '?ttl=-1', '?ttl=1e308'), { freq: 4 }),
  put: anyBody,
  patch: jsonPatchText,
  operations: operationsText
}).map(({ kind, tokens, condition, ttl, put, patch, operations }) => {
  const path = `/docs/${KEY}${tokens.map((token) => '/' + encodeSegment(escapeToken(token), 'full')).join('')}${ttl ?? ''}`
  const extra = condition ?? {}
  switch (kind) {
    case 'PUT': return { method: 'PUT', url: path, body: put, headers: headers('application/json', extra) }
    case 'MERGE': return { method: 'PATCH', url: path, body: put, headers: headers('application/merge-patch+json', extra) }
    case 'JSON-PATCH': return { method: 'PATCH', url: path, body: patch, headers: headers('application/json-patch+json', extra) }
    case 'POST': return { method: 'POST', url: path, body: operations, headers: headers('application/json', extra) }
    case 'DELETE': return { method: 'DELETE', url: path, headers: extra }
    default: return { method: 'PUT', url: `/ttl/${KEY}`, body: put, headers: headers('application/json', extra) }
  }
})

describe('a refused write changes nothing', () => {
  it('leaves the document byte-identical: text, version record and expiry', async () => {
    await fc.assert(fc.asyncProperty(hostileWrite, fc.boolean(), async (request, expiring) => {
      expect(await seedDocument(rig, KEY, documentAlong(['o'], false), expiring ? '?ttl=3600' : '')).toBe(true)
      const before = await storedState(rig, KEY)
      const { answer } = await runCase(rig, `${request.method} ${request.url} ${String(request.body).slice(0, 200)}`,
        documentKeys(rig, KEY), async () => {
          const sent = await inject(rig, request)
          if (sent.statusCode >= 400) expect(await storedState(rig, KEY), `after ${sent.statusCode}: ${sent.body}`).toEqual(before)
          return sent
        })
      expect(answer.statusCode).toBeGreaterThan(0)
    }), propertyOptions(300))
  }, timeoutFor(300))
})

/** Values a client may write, as text: JSON.stringify's form, with number texts at the 64-bit edges. */
const storableText = fc.oneof(
  plainJsonText,
  hostileJsonText,
  numberText.map((number) => `{"n":${number}}`),
  fc.constantFrom('9223372036854775807', '-9223372036854775808', '18446744073709551615', '[0,-1,1.5,1e-7,123456789.125]',
    // A subnormal RedisJSON reads one unit in the last place off (found by this property).
    '999999999.11111111e-318')
)

/** Canonical texts: what RedisJSON writes back byte for byte (integers, strings, literals; no floats, no whitespace). */
function isCanonical (text: string): boolean {
  try {
    const value: unknown = JSON.parse(text)
    return JSON.stringify(value) === text && !/[.eE]/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""')) && withinInt64(text)
  } catch {
    return false
  }
}

/** Whether every integer of a text fits the signed or unsigned 64-bit range RedisJSON keeps exactly. */
function withinInt64 (text: string): boolean {
  const integers = text.replace(/"(?:[^"\\]|\\.)*"/g, '""').match(/-?\d+/g) ?? []
  return integers.every((digits) => BigInt(digits) >= -(2n ** 63n) && BigInt(digits) < 2n ** 64n)
}

/** Deep equality of parsed JSON, numbers compared with sameNumber (see known-findings). */
function sameValue (read: unknown, written: unknown): boolean {
  if (typeof read === 'number' && typeof written === 'number') return sameNumber(read, written)
  if (typeof read !== 'object' || read === null || typeof written !== 'object' || written === null) return read === written
  const [a, b] = [Object.entries(read), Object.entries(written)]
  if (Array.isArray(read) !== Array.isArray(written) || a.length !== b.length) return false
  return a.every(([name, value]) => Object.hasOwn(written, name) && sameValue(value, (written as Record<string, unknown>)[name]))
}

describe('what a client writes is what it reads back', () => {
  it('answers a write with what a GET then reads, and keeps canonical texts byte for byte', async () => {
    await fc.assert(fc.asyncProperty(storableText, fc.option(memberName, { freq: 2 }), async (text, member) => {
      expect(await seedDocument(rig, KEY, '{"o":{}}')).toBe(true)
      const location = member === null ? '' : `/o/${encodeSegment(escapeToken(member), 'full')}`
      const url = `/docs/${KEY}${location}`
      await runCase(rig, `PUT ${url} ${text.slice(0, 200)}`, documentKeys(rig, KEY), async () => {
        const written = await inject(rig, { method: 'PUT', url, body: text, headers: { 'content-type': 'application/json' } })
        if (written.statusCode < 300) {
          const read = await inject(rig, { method: 'GET', url })
          expect(read.statusCode).toBe(200)
          expect(read.body, 'a GET reads what the write answered').toBe(written.body)
          expect(read.headers.etag).toBe(written.headers.etag)
          if (isCanonical(text)) expect(read.body, 'a canonical text reads back byte for byte').toBe(text)
          else expect(sameValue(JSON.parse(read.body), JSON.parse(text)), `${read.body} reads back equal to ${text}`).toBe(true)
        }
        return written
      })
    }), propertyOptions(300))
  }, timeoutFor(300))
})
