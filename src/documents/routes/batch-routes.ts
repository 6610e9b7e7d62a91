import type { FastifyInstance } from 'fastify'
import { reaches } from '../../access/scopes.js'
import { BadRequestError, UnaddressableError, UnstorableJsonError } from '../../errors.js'
import { etagOf, versionCondition } from '../../http/conditional.js'
import { nestingDepth } from '../json-body.js'
import { checkKey, parsePointer, unaddressableToken } from '../pointer.js'
import { RawJson } from '../raw-json.js'
import { acceptMediaTypes, jsonBodyOf, secondsLeft, ttlMsOf } from '../request.js'
import type { BatchPutItem, BatchReadItem } from '../store/index.js'
import { onEachKey } from './access-rules.js'
import { batchReadSchema, batchWriteSchema } from './batch-route-schemas.js'

interface BatchReadBody { keys: string[], pointer?: string }
interface BatchWriteBody { items: Array<{ key: string, value: unknown, ifMatch?: string, ifNoneMatch?: string, ttl?: number }> }

const batchStatus = { created: 201, ok: 200, precondition: 412, wrongtype: 409, invalid: 422, toolarge: 422 } as const

/** `POST /batch/read` and `/batch/write`: many documents in one request. */
export default async function batchRoutes (app: FastifyInstance, { maxDepth }: { maxDepth: number }) {
  const store = app.documents
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
}

function requireKey (key: string, index: number): void {
  const problem = checkKey(key)
  if (problem) throw new BadRequestError(`Key ${index}: ${problem}`)
}

function tooLargeDetail (size: number, max: number): string {
  return `The document would be ${size} bytes long; documents hold at most ${max} (MAX_DOCUMENT_BYTES)`
}
