import type { FastifyInstance } from 'fastify'
import { denied, type AccessRule } from '../access/plugin.js'
import { listingReach, reaches, type Right } from '../access/scopes.js'
import { BadRequestError, UnaddressableError, UnstorableJsonError } from '../errors.js'
import { etagOf, versionCondition } from '../http/conditional.js'
import { nestingDepth } from './json-body.js'
import { checkKey, parsePointer, unaddressableToken } from './pointer.js'
import { RawJson } from './raw-json.js'
import {
  acceptMediaTypes, addressOf, conditionsOf, jsonBodyOf, keyIn, secondsLeft, setRecordHeaders, ttlMsOf
} from './request.js'
import { batchReadSchema, batchWriteSchema, listSchema, metaSchema, ttlSchemas } from './collection-route-schemas.js'
import type { BatchPutItem, BatchReadItem, VersionRecord } from './store/index.js'

interface BatchReadBody { keys: string[], pointer?: string }
interface BatchWriteBody { items: Array<{ key: string, value: unknown, ifMatch?: string, ifNoneMatch?: string, ttl?: number }> }
interface ListQuery { prefix: string, limit: number, cursor?: string }

const batchStatus = { created: 201, ok: 200, precondition: 412, wrongtype: 409, invalid: 422, toolarge: 422 } as const

/** A right on the key in the URL, checked before the route runs. */
function onKey (right: Right, prefix: string): { access: AccessRule } {
  return { access: { right, target: keyIn(prefix) } }
}

/** A right the route checks on each key it meets: the hook only asks that it be held somewhere. */
function onEachKey (right: Right): { access: AccessRule } {
  return { access: { right } }
}

/** Everything about many documents or about a document's metadata: listing, batches, expiry, description. */
export default async function collectionRoutes (app: FastifyInstance, { maxDepth }: { maxDepth: number }) {
  const store = app.documents

  app.get<{ Querystring: ListQuery }>('/docs', { schema: listSchema, config: onEachKey('read') }, async (request, reply) => {
    const { prefix, limit } = request.query
    // Only keys under a granted read prefix; the cursor stays bound to the listing's prefix.
    const reach = listingReach(request.access, prefix)
    if (reach === 'none') throw denied(reply, request.access, `The credentials' scopes give no "read" right on keys starting with ${JSON.stringify(prefix)}`)
    const admits = reach === 'all' ? undefined : (key: string) => reach.some((granted) => key.startsWith(granted))
    const listing = await store.list(prefix, decodeCursor(request.query.cursor, prefix), limit, admits)
    const next = listing.cursor === undefined ? null : encodeCursor(prefix, listing.cursor)
    if (next) {
      const query = new URLSearchParams({ prefix, limit: String(limit), cursor: next })
      reply.header('Link', `</docs?${query}>; rel="next"`)
    }
    return reply.type('application/json').send(JSON.stringify({ keys: listing.keys, cursor: next }))
  })

  const jsonOnly = acceptMediaTypes('application/json')

  app.post<{ Body: BatchReadBody }>('/batch/read', {
    schema: batchReadSchema, config: onEachKey('read'), preValidation: jsonOnly
  }, async (request, reply) => {
    const { keys, pointer = '' } = request.body
    keys.forEach((key, index) => requireKey(key, index))
    const tokens = parsePointer(pointer)!
    const unaddressable = unaddressableToken(tokens)
    if (unaddressable !== undefined) throw new UnaddressableError(unaddressable)
    // A key outside the scopes is 403 in its own item, never read; the others proceed.
    const allowed = keys.map((key) => reaches(request.access, 'read', key))
    const readable = keys.filter((_key, index) => allowed[index])
    const found = readable.length === 0 ? [] : await store.readMany(readable, tokens)
    let next = 0
    const items: Array<BatchReadItem | { key: string, status: 403 }> =
      keys.map((key, index) => allowed[index] ? found[next++]! : { key, status: 403 })
    const rendered = items.map((item) => {
      const head = `{"key":${JSON.stringify(item.key)},"status":${item.status}`
      if (item.status !== 200) return head + '}'
      const expiry = item.expiresAt === undefined ? '' : `,"expiresIn":${secondsLeft(item.expiresAt)}`
      return `${head},"etag":${JSON.stringify(etagOf(item.version))}${expiry},"value":${item.json}}`
    })
    return reply.type('application/json').send(`{"items":[${rendered.join(',')}]}`)
  })

  app.post<{ Body: BatchWriteBody }>('/batch/write', {
    schema: batchWriteSchema, config: onEachKey('write'), preValidation: jsonOnly
  }, async (request, reply) => {
    const body = jsonBodyOf(request)
    const raw = new RawJson(body.text)
    const nodes = raw.items(raw.member(raw.root, 'items'))
    const items = request.body.items.map((item, index): BatchPutItem => {
      requireKey(item.key, index)
      const depth = nestingDepth(item.value)
      if (depth > maxDepth) throw new UnstorableJsonError(`Item ${index} nests deeper than ${maxDepth} levels`)
      const ttlMs = ttlMsOf(item.ttl)
      return {
        key: item.key,
        json: raw.memberText(nodes[index], 'value')!,
        depth,
        ifMatch: versionCondition(item.ifMatch, 'If-Match'),
        ifNoneMatch: versionCondition(item.ifNoneMatch, 'If-None-Match'),
        ...(ttlMs === undefined ? {} : { ttlMs })
      }
    })
    // An item outside the scopes is 403 in its own result, never written; the others proceed.
    const allowed = items.map((item) => reaches(request.access, 'write', item.key))
    const writable = items.filter((_item, index) => allowed[index])
    const written = writable.length === 0 ? [] : await store.putMany(writable)
    let next = 0
    const results = items.map((item, index) => allowed[index] ? written[next++]! : { key: item.key, status: 'forbidden' as const })
    return reply.type('application/json').send(JSON.stringify({
      items: results.map((result) => result.status === 'forbidden' ? { key: result.key, status: 403 } : ({
        key: result.key,
        status: batchStatus[result.status],
        ...(result.version ? { etag: etagOf(result.version) } : {}),
        ...(result.violations ? { errors: result.violations.map((violation) => ({ in: 'document', ...violation })) } : {}),
        ...(result.size === undefined
          ? {}
          : { errors: [{ in: 'document', pointer: '', detail: tooLargeDetail(result.size, store.limits.documentBytes) }] })
      }))
    }))
  })

  app.get('/ttl/:key', { schema: ttlSchemas.get, config: onKey('read', '/ttl/') }, async (request, reply) => {
    const record = await store.expiry(wholeDocumentKey(addressOf(request, '/ttl/')), undefined, conditionsOf(request))
    return sendTtl(reply, record)
  })

  app.put<{ Body: { ttl: number } }>('/ttl/:key', {
    schema: ttlSchemas.put, config: onKey('write', '/ttl/'), preValidation: jsonOnly
  }, async (request, reply) => {
    const key = wholeDocumentKey(addressOf(request, '/ttl/'))
    return sendTtl(reply, await store.expiry(key, ttlMsOf(request.body.ttl), conditionsOf(request)))
  })

  app.delete('/ttl/:key', { schema: ttlSchemas.delete, config: onKey('write', '/ttl/') }, async (request, reply) => {
    const key = wholeDocumentKey(addressOf(request, '/ttl/'))
    setRecordHeaders(reply, await store.expiry(key, 0, conditionsOf(request)))
    return reply.code(204).send()
  })

  for (const form of ['document', 'path'] as const) {
    app.get(form === 'path' ? '/meta/:key/*' : '/meta/:key', { schema: metaSchema(form), config: onKey('read', '/meta/') }, async (request, reply) => {
      const { version, expiresAt, ...description } = await store.describe(addressOf(request, '/meta/', { throughEscapes: false }))
      setRecordHeaders(reply, { version, ...(expiresAt === undefined ? {} : { expiresAt }) })
      return reply.type('application/json').send(JSON.stringify(description))
    })
  }
}

function requireKey (key: string, index: number): void {
  const problem = checkKey(key)
  if (problem) throw new BadRequestError(`Key ${index}: ${problem}`)
}

function wholeDocumentKey (address: { key: string, tokens: string[] }): string {
  if (address.tokens.length > 0) throw new BadRequestError('A time to live applies to a whole document: /ttl/{key}')
  return address.key
}

function sendTtl (reply: import('fastify').FastifyReply, record: VersionRecord) {
  setRecordHeaders(reply, record)
  const ttl = record.expiresAt === undefined ? null : Math.max(0, (record.expiresAt - Date.now()) / 1000)
  return reply.type('application/json').send(JSON.stringify({ ttl }))
}

/** Cursors are opaque to clients and bound to the prefix they were issued for. */
function encodeCursor (prefix: string, cursor: string): string {
  return Buffer.from(JSON.stringify([prefix, cursor])).toString('base64url')
}

function decodeCursor (token: string | undefined, prefix: string): string {
  if (token === undefined) return '0'
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString())
  } catch {
    decoded = undefined
  }
  const [issuedFor, cursor] = Array.isArray(decoded) ? decoded : []
  if (issuedFor !== prefix || !isScanCursor(cursor)) throw new BadRequestError('The cursor is not one this listing issued')
  return cursor
}

/** SCAN cursors are unsigned 64-bit integers; Redis refuses any other number with an error. */
function isScanCursor (cursor: unknown): cursor is string {
  return typeof cursor === 'string' && /^\d{1,20}$/.test(cursor) && BigInt(cursor) < 2n ** 64n
}

function tooLargeDetail (size: number, max: number): string {
  return `The document would be ${size} bytes long; documents hold at most ${max} (MAX_DOCUMENT_BYTES)`
}
