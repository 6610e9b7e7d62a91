import fc from 'fast-check'
import { describe, it } from 'vitest'
import { address, type Address, urlOf } from './generators/addresses.js'
import { anyBody, jsonPatchText, operationsText } from './generators/bodies.js'
import { documentKeys, propertyOptions, runCase, startRig, timeoutFor } from './rig.js'
import { documentAlong, inject, seedDocument, type Method } from './send.js'

const rig = await startRig()

type Kind = Method | 'JSON-PATCH'

const bodyFor: Record<Kind, fc.Arbitrary<string | Buffer | undefined>> = {
  GET: fc.constant(undefined),
  HEAD: fc.constant(undefined),
  DELETE: fc.constant(undefined),
  OPTIONS: fc.constant(undefined),
  PUT: anyBody,
  PATCH: anyBody,
  'JSON-PATCH': jsonPatchText,
  POST: fc.oneof({ weight: 4, arbitrary: operationsText }, { weight: 1, arbitrary: anyBody })
}

const contentTypeFor: Record<Kind, string | undefined> = {
  GET: undefined, HEAD: undefined, DELETE: undefined, OPTIONS: undefined,
  PUT: 'application/json', PATCH: 'application/merge-patch+json', 'JSON-PATCH': 'application/json-patch+json', POST: 'application/json'
}

/** Query parameters beside the pointer: expiries at and past their bounds, a JSONPath, strangers. */
const extraQuery = fc.option(fc.oneof(
  fc.constantFrom('0', '-1', '0.0001', '1', '315360000', '315360001', '1e308', 'abc', '', 'NaN').map((ttl) => ({ ttl })),
  fc.constantFrom('$', '$..*', '$.a[0]', '$[?(@.n>0)]', 'a').map((jsonpath) => ({ jsonpath })),
  fc.constant({ unknown: '1' })
), { freq: 3 })

const documentRequest = fc.record({
  target: address,
  kind: fc.constantFrom<Kind>('GET', 'HEAD', 'PUT', 'PATCH', 'JSON-PATCH', 'POST', 'DELETE', 'OPTIONS'),
  query: extraQuery,
  arrays: fc.boolean(),
  seeded: fc.boolean()
}).chain((request) => bodyFor[request.kind].map((body) => ({ ...request, body })))

function describeCase ({ kind, target, body }: { kind: Kind, target: Address, body: unknown }, url: string): string {
  const text = Buffer.isBuffer(body) ? `<${body.length} bytes>` : typeof body === 'string' ? body.slice(0, 120) : ''
  return `${kind} ${url.slice(0, 200)} ${text} (tokens ${JSON.stringify(target.tokens).slice(0, 120)})`
}

describe('any request to any document location keeps the contract', () => {
  it('answers without a 5xx, holds Redis briefly, and changes no key but its document\'s', async () => {
    await fc.assert(fc.asyncProperty(documentRequest, async (request) => {
      const { target, kind, query, arrays, seeded, body } = request
      if (seeded) await seedDocument(rig, target.key, documentAlong(target.tokens, arrays))
      const url = urlOf('docs', target, query ?? {})
      const contentType = contentTypeFor[kind]
      await runCase(rig, describeCase(request, url), documentKeys(rig, target.key), () => inject(rig, {
        method: kind === 'JSON-PATCH' ? 'PATCH' : kind,
        url,
        ...(body === undefined ? {} : { body }),
        headers: contentType ? { 'content-type': contentType } : {}
      }))
    }), propertyOptions(400))
  }, timeoutFor(400))

  it('reads the metadata of any location the same way', async () => {
    await fc.assert(fc.asyncProperty(address, fc.boolean(), async (target, arrays) => {
      await seedDocument(rig, target.key, documentAlong(target.tokens, arrays))
      const url = urlOf('meta', target)
      await runCase(rig, `GET ${url}`, documentKeys(rig, target.key), () => inject(rig, { method: 'GET', url }))
    }), propertyOptions(100))
  }, timeoutFor(100))
})
