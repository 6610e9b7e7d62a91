import fc from 'fast-check'
import { keyBeside } from '../../src/redis/slots.js'
import { describe, it } from 'vitest'
import { decodedKey, documentKey, encodeSegment, escapeToken, hostileText, pointerTokens } from './generators/addresses.js'
import {
  anyBody, contentType, hostileJsonText, jsonPatchText, operationsText, plainJsonText, pointerText
} from './generators/bodies.js'
import { documentKeys, propertyOptions, runCase, startRig, timeoutFor } from './rig.js'
import { documentAlong, inject, seedDocument, type Method } from './send.js'

const rig = await startRig()

const seededLocations = fc.constantFrom('', '/o', '/a', '/a/0', '/a/-', '/n', '/big', '/s', '/b', '/missing', '/o/x', '/a/9')

describe('any body, in any media type, to any method keeps the contract', () => {
  it('refuses what it cannot store and stores what it can, without a 5xx or a stall', async () => {
    const request = fc.record({
      method: fc.constantFrom<Method>('PUT', 'PATCH', 'POST', 'DELETE', 'GET'),
      location: seededLocations,
      contentType: fc.option(contentType, { freq: 10 }),
      body: fc.oneof(anyBody, jsonPatchText, operationsText)
    })
    await fc.assert(fc.asyncProperty(request, async ({ method, location, contentType: type, body }) => {
      const key = 'target'
      await seedDocument(rig, key, documentAlong([], false))
      const url = `/docs/${key}${location}`
      const label = `${method} ${url} (${type?.slice(0, 60)}) ${Buffer.isBuffer(body) ? `<${body.length} bytes>` : body.slice(0, 160)}`
      await runCase(rig, label, documentKeys(rig, key), () => inject(rig, {
        method, url, body, headers: type === null ? {} : { 'content-type': type }
      }))
    }), propertyOptions(300))
  }, timeoutFor(300))
})

describe('JSON Patch and operations with hostile pointers and values keep the contract', () => {
  it('applies or refuses a JSON Patch at any location', async () => {
    await fc.assert(fc.asyncProperty(pointerTokens, fc.boolean(), jsonPatchText, async (tokens, arrays, patch) => {
      const key = 'patched'
      await seedDocument(rig, key, documentAlong(tokens.slice(0, 3), arrays))
      const base = tokens.slice(0, 3).map((token) => '/' + encodeSegment(escapeToken(token), 'full')).join('')
      const url = `/docs/${key}${base}`
      await runCase(rig, `PATCH ${url} ${patch.slice(0, 200)}`, documentKeys(rig, key), () => inject(rig, {
        method: 'PATCH', url, body: patch, headers: { 'content-type': 'application/json-patch+json' }
      }))
    }), propertyOptions(300))
  }, timeoutFor(300))

  it('applies or refuses operations at any location', async () => {
    await fc.assert(fc.asyncProperty(seededLocations, operationsText, async (location, operations) => {
      const key = 'operated'
      await seedDocument(rig, key, documentAlong([], false))
      const url = `/docs/${key}${location}`
      await runCase(rig, `POST ${url} ${operations.slice(0, 200)}`, documentKeys(rig, key), () => inject(rig, {
        method: 'POST', url, body: operations, headers: { 'content-type': 'application/json' }
      }))
    }), propertyOptions(300))
  }, timeoutFor(300))
})

/** A batch's keys: hostile ones, repeats, and the neighbours of other clients. */
const batchKeys = fc.array(fc.oneof(documentKey, fc.constantFrom('b1', 'b2', 'neighbour')), { minLength: 0, maxLength: 6 })

const entityTags = fc.oneof(fc.constantFrom('*', '"1"', 'W/"1"', '"', '', '"1", "2"', '*, "1"', '"\u0000"', `"${'9'.repeat(30)}"`), hostileText(8))

describe('batches of hostile keys, pointers and values keep the contract', () => {
  it('reads any batch', async () => {
    const body = fc.record({ keys: batchKeys, pointer: fc.option(pointerText, { freq: 2 }), extra: fc.option(fc.constant('"x":1'), { freq: 10 }) })
      .map(({ keys, pointer, extra }) => `{"keys":[${keys.map((key) => JSON.stringify(key)).join(',')}]` +
        (pointer === null ? '' : `,"pointer":${JSON.stringify(pointer)}`) + (extra === null ? '' : `,${extra}`) + '}')
    await fc.assert(fc.asyncProperty(fc.oneof({ weight: 5, arbitrary: body }, { weight: 1, arbitrary: anyBody }), async (text) => {
      await seedDocument(rig, 'b1', documentAlong(['a', '0'], true))
      await runCase(rig, `POST /batch/read ${typeof text === 'string' ? text.slice(0, 200) : '<bytes>'}`,
        documentKeys(rig, 'b1'), () => inject(rig, {
          method: 'POST', url: '/batch/read', body: text, headers: { 'content-type': 'application/json' }
        }))
    }), propertyOptions(200))
  }, timeoutFor(200))

  it('writes any batch, touching only its own keys', async () => {
    const item = fc.record({
      key: fc.oneof(documentKey, fc.constantFrom('b1', 'b2')),
      value: fc.option(fc.oneof(hostileJsonText, plainJsonText), { freq: 10 }),
      ifMatch: fc.option(entityTags, { freq: 3 }),
      ifNoneMatch: fc.option(entityTags, { freq: 3 }),
      ttl: fc.option(fc.constantFrom('0', '-1', '0.001', '1', '315360001', '"1"', '1e308'), { freq: 3 })
    })
    const body = fc.array(item, { maxLength: 5 })
    await fc.assert(fc.asyncProperty(body, async (items) => {
      await seedDocument(rig, 'b1', '{"seeded":true}')
      const text = `{"items":[${items.map(({ key, value, ifMatch, ifNoneMatch, ttl }) => {
        const members = [`"key":${JSON.stringify(key)}`]
        if (value !== null) members.push(`"value":${value}`)
        if (ifMatch !== null) members.push(`"ifMatch":${JSON.stringify(ifMatch)}`)
        if (ifNoneMatch !== null) members.push(`"ifNoneMatch":${JSON.stringify(ifNoneMatch)}`)
        if (ttl !== null) members.push(`"ttl":${ttl}`)
        return `{${members.join(',')}}`
      }).join(',')}]}`
      const own = [...new Set(['b1', ...items.map((entry) => entry.key)])].flatMap((key) => documentKeys(rig, key))
      await runCase(rig, `POST /batch/write ${text.slice(0, 300)}`, own, () => inject(rig, {
        method: 'POST', url: '/batch/write', body: text, headers: { 'content-type': 'application/json' }
      }))
    }), propertyOptions(200))
  }, timeoutFor(200))
})

describe('listing with hostile prefixes and cursors keeps the contract', () => {
  it('lists any prefix, with any limit and cursor, without reaching outside the namespace', async () => {
    const query = fc.record({
      prefix: fc.option(fc.oneof(hostileText(8), fc.constantFrom('*', '?', '[', '\\', '[a-z]*', '\u001f', 'a\u001fversion', '%', '')), { freq: 8 }),
      limit: fc.option(fc.constantFrom('0', '1', '1000', '1001', '-1', 'abc', '1e3', '99999999999999999999'), { freq: 3 }),
      cursor: fc.option(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(
        Buffer.from(JSON.stringify(['', '18446744073709551616'])).toString('base64url'),
        Buffer.from(JSON.stringify(['', '-1'])).toString('base64url'),
        Buffer.from(JSON.stringify(['', '1e5'])).toString('base64url'),
        Buffer.from('{"__proto__":1}').toString('base64url'), 'x'.repeat(300))), { freq: 3 })
    })
    await fc.assert(fc.asyncProperty(query, async (parameters) => {
      const search = new URLSearchParams()
      for (const [name, value] of Object.entries(parameters)) if (value !== null) search.set(name, value)
      const url = `/docs?${search}`
      await runCase(rig, `GET ${url}`, [], () => inject(rig, { method: 'GET', url }))
    }), propertyOptions(100))
  }, timeoutFor(100))
})

describe('collection schemas of any shape keep the contract', () => {
  it('registers or refuses any schema, then validates a write against it', async () => {
    const schema = fc.oneof(hostileJsonText, plainJsonText, fc.constantFrom(...[
      '{"type":"object","required":["a"]}', '{"$ref":"#"}', '{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}',
      '{"$schema":"http://json-schema.org/draft-07/schema#"}', '{"$async":true}', '{"$ref":"http://example.com/x"}',
      '{"format":"email"}', '{"type":"string","format":"date-time"}', '{"items":' + '{"items":'.repeat(90) + '{}' + '}'.repeat(91),
      '{"properties":{"__proto__":{"type":"string"}}}', 'true', 'false', '{"type":"integer","multipleOf":1e-308}',
      '{"minLength":1e308}', '{"maxItems":9223372036854775808}']))
    const collection = fc.oneof(fc.constantFrom('users', 'u', 'a:b', '', '%', '..'), hostileText(6))
    await fc.assert(fc.asyncProperty(collection, schema, hostileJsonText, async (name, text, document) => {
      const segment = encodeSegment(name, 'full')
      const decoded = decodedKey(segment)
      const schemaKeys = decoded === undefined
        ? []
        : [keyBeside(`${rig.prefix}\u001fschemas`, rig.prefix, `\u001fschema\u001f${decoded}`), `${rig.prefix}\u001fschemas`, ...rig.app.schemas.storage.mirrors]
      const registered = await runCase(rig, `PUT /schemas/${segment} ${text.slice(0, 200)}`, schemaKeys, () => inject(rig, {
        method: 'PUT', url: `/schemas/${segment}`, body: text, headers: { 'content-type': 'application/schema+json' }
      }), { keep: true })
      const key = `${decoded ?? 'none'}:1`
      const url = `/docs/${encodeSegment(key, 'full')}`
      await runCase(rig, `PUT ${url} ${document.slice(0, 200)} after a schema answered ${registered.answer.statusCode}`,
        [...schemaKeys, ...documentKeys(rig, key)], () => inject(rig, {
          method: 'PUT', url, body: document, headers: { 'content-type': 'application/json' }
        }))
    }), propertyOptions(100))
  }, timeoutFor(100))
})
