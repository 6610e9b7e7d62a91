import type { ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { PUBLIC, type AccessRule } from '../access/plugin.js'
import { BadRequestError, InvalidJsonPathError } from '../errors.js'
import { noneMatchHolds } from '../http/conditional.js'
import type { EarlyAnswer, EarlyAnswers } from '../http/early-answers.js'
import { analyzeJsonPath } from './jsonpath.js'
import { parseDocumentAddress, unaddressableToken, type DocumentAddress } from './pointer.js'
import { preparePatch } from './json-patch.js'
import { prepareOperations } from './operations.js'
import {
  acceptMediaTypes, addressOf, locationOf, conditionsOf, documentBodyOf, jsonBodyOf, keyIn, prefersMinimal, recordHeaders,
  setRecordHeaders, ttlMsOf
} from './request.js'
import { documentRouteSchemas as schemas, type DocumentForm } from './route-schemas.js'
import type { DocumentStore, StoredValue, WriteOptions, WriteResult } from './store/index.js'

export interface DocumentRoutesOptions {
  maxDepth: number
  /** Where to answer plain reads before fastify meets them; leave out to answer every read in the route. */
  earlyAnswers?: EarlyAnswers
}

/** Both URL forms of the resource: the pointer in `?pointer=` or in the path. */
const URL_PATTERNS: Record<DocumentForm, string> = { document: '/docs/:key', path: '/docs/:key/*' }
const URL_PREFIX = '/docs/'
/** Longer URLs go to fastify, which bounds every route parameter (maxParamLength). */
const MAX_EARLY_URL_LENGTH = 8 * 1024
/**
 * Longer bodies are sent as a Buffer: Node joins a string body to the response head, and writing the
 * joined string copies it once more on the JavaScript heap, where megabytes bring on full collections.
 */
const LARGE_BODY_LENGTH = 16 * 1024
const ALLOW = 'GET, HEAD, PUT, PATCH, POST, DELETE'
/** The Content-Type of a read's answer, whether the route or the early answer sends it. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
const MERGE_PATCH = ['application/merge-patch+json', 'application/json']
const JSON_PATCH = 'application/json-patch+json'
/** Reads need `read` on the key, writes `write`; JSON Patch `from` and operation paths stay in the same document. */
const READ: { access: AccessRule } = { access: { right: 'read', target: keyIn(URL_PREFIX) } }
const WRITE: { access: AccessRule } = { access: { right: 'write', target: keyIn(URL_PREFIX) } }

interface WriteQuery { ttl?: number }

/**
 * The document resource: `/docs/{key}` and any location inside it, `/docs/{key}/{pointer...}` or
 * `/docs/{key}?pointer=`.
 */
export default async function documentRoutes (app: FastifyInstance, { maxDepth, earlyAnswers }: DocumentRoutesOptions) {
  for (const form of ['document', 'path'] as const) documentForm(app, form, maxDepth, earlyAnswers)
  earlyAnswers?.install(answerReadEarly(app.documents))
}

function documentForm (app: FastifyInstance, form: DocumentForm, maxDepth: number, earlyAnswers?: EarlyAnswers) {
  const store = app.documents
  const url = URL_PATTERNS[form]
  const writeOptions = (request: FastifyRequest<{ Querystring: WriteQuery }>, wantValue = !prefersMinimal(request)) => {
    const { ifMatch, ifNoneMatch } = conditionsOf(request)
    const options: WriteOptions = { ifMatch, ifNoneMatch, wantValue, ttlMs: ttlMsOf(request.query.ttl) }
    return options
  }

  app.get<{ Querystring: { jsonpath?: string } }>(url, { schema: schemas.read(form), config: READ, onRequest: answerRecalled(store) },
    async (request, reply) => {
      // answerRecalled left conditional reads to this point, their If-None-Match now validated.
      const recalled = request.headers['if-none-match'] === undefined ? undefined : store.recall(request.url)
      if (recalled) return sendStored(request, reply, recalled)
      // A plain read that failed early failed with this very read: its error is the answer.
      const failure = earlyAnswers?.failureOf(request.raw)
      if (failure !== undefined) throw failure
      const address = addressOf(request, URL_PREFIX, { namedLast: true })
      const { jsonpath } = request.query
      if (jsonpath !== undefined && address.tokens.length > 0) {
        throw new BadRequestError('A JSONPath query applies to a whole document: use /docs/{key}?jsonpath=...')
      }
      if (jsonpath === undefined) {
        // The URL names the answer: what reached here with it once, valid, would again.
        return sendStored(request, reply, await store.read(address, request.url))
      }
      const verdict = analyzeJsonPath(jsonpath)
      if ('problem' in verdict) throw new InvalidJsonPathError(verdict.problem)
      return sendStored(request, reply, await store.query(address.key, jsonpath, verdict.shape))
    })

  app.put<{ Querystring: WriteQuery }>(url, {
    schema: schemas.put(form),
    config: WRITE,
    preValidation: acceptMediaTypes('application/json')
  }, async (request, reply) => {
    const address = addressOf(request, URL_PREFIX, { namedLast: true })
    const body = documentBodyOf(request, address, maxDepth)
    return sendWrite(request, reply, await store.put(address, body, writeOptions(request)))
  })

  app.patch<{ Querystring: WriteQuery }>(url, {
    preValidation: acceptMediaTypes(...MERGE_PATCH, JSON_PATCH),
    schema: schemas.patch(form),
    config: WRITE
  }, async (request, reply) => {
    const isJsonPatch = request.headers['content-type']?.toLowerCase().startsWith(JSON_PATCH) === true
    const address = addressOf(request, URL_PREFIX, { namedLast: isJsonPatch })
    const body = jsonBodyOf(request)
    if (isJsonPatch) {
      const operations = preparePatch(body, address.tokens, maxDepth)
      return sendWrite(request, reply, await store.jsonPatch(address, operations, writeOptions(request)))
    }
    const merge = documentBodyOf(request, address, maxDepth)
    return sendWrite(request, reply, await store.merge(address, merge, writeOptions(request)))
  })

  app.post<{ Querystring: WriteQuery }>(url, {
    schema: schemas.post(form),
    config: WRITE,
    preValidation: acceptMediaTypes('application/json')
  }, async (request, reply) => {
    const address = addressOf(request, URL_PREFIX)
    const body = jsonBodyOf(request)
    const operations = prepareOperations(body, address.tokens, maxDepth)
    const outcome = await store.operate(address, operations, writeOptions(request, false))
    setRecordHeaders(reply, outcome)
    const json = Array.isArray(body.value)
      ? `{"results":[${outcome.results.join(',')}]}`
      : `{"result":${outcome.results[0]}}`
    return reply.type('application/json').send(json)
  })

  app.delete(url, { schema: schemas.remove(form), config: WRITE }, async (request, reply) => {
    const result = await store.remove(addressOf(request, URL_PREFIX, { namedLast: true }), conditionsOf(request))
    setRecordHeaders(reply, result)
    return reply.code(204).send()
  })

  app.options(url, { schema: schemas.options(form), config: { access: PUBLIC } }, async (_request, reply) => {
    return reply.header('Allow', ALLOW).code(204).send()
  })
}

/**
 * Answers a read the cache holds before fastify validates it: the same URL passed validation when its
 * answer was remembered. A request with If-None-Match waits for its header to be validated. Unconditional
 * GETs on a socket meet answerReadEarly first; this serves HEAD and injected requests.
 */
function answerRecalled (store: DocumentStore) {
  return function answerRecalledRead (request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const recalled = request.headers['if-none-match'] === undefined ? store.recall(request.url) : undefined
    if (recalled === undefined) return done()
    sendStored(request, reply, recalled)
  }
}

/**
 * The route's answer to a plain GET on a socket (no query, no If-None-Match), before fastify builds a
 * request for it: from memory when remembered, else from Redis. Any URL the route might refuse, and any
 * read that fails, goes to fastify, which answers it as it always would.
 */
function answerReadEarly (store: DocumentStore): EarlyAnswer {
  return function answerGet (request, response) {
    const url = request.url
    if (request.method !== 'GET' || url === undefined || request.headers['if-none-match'] !== undefined) return false
    const recalled = store.recall(url)
    if (recalled !== undefined) return sendEarly(response, recalled)
    const address = plainAddressOf(url)
    if (address === undefined) return false
    return store.read(address, url).then((stored) => sendEarly(response, stored))
  }
}

/** The address in a URL of the path form without a query, if it is one the route would read. */
function plainAddressOf (url: string): DocumentAddress | undefined {
  if (!url.startsWith(URL_PREFIX) || url.length > MAX_EARLY_URL_LENGTH || /[?#]/.test(url)) return undefined
  const parsed = parseDocumentAddress(url.slice(URL_PREFIX.length))
  if ('problem' in parsed || unaddressableToken(parsed.tokens, true) !== undefined) return undefined
  return parsed
}

/** A read's body as sent, early or by the route: long ones as a Buffer (see LARGE_BODY_LENGTH). */
function bodyOf (json: string): string | Buffer {
  return json.length > LARGE_BODY_LENGTH ? Buffer.from(json) : json
}

function sendEarly (response: ServerResponse, stored: StoredValue): true {
  const body = bodyOf(stored.json)
  response.writeHead(200, recordHeaders(stored, {
    'content-type': JSON_CONTENT_TYPE, 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.length
  }))
  response.end(body)
  return true
}

function sendStored (request: FastifyRequest, reply: FastifyReply, stored: StoredValue) {
  setRecordHeaders(reply, stored)
  if (!noneMatchHolds(request.headers['if-none-match'], stored.version)) return reply.code(304).send()
  return reply.type(JSON_CONTENT_TYPE).send(bodyOf(stored.json))
}

function sendWrite (request: FastifyRequest, reply: FastifyReply, result: WriteResult) {
  setRecordHeaders(reply, result)
  if (result.created) reply.code(201).header('Location', locationOf(request))
  if (result.json === undefined) {
    if (prefersMinimal(request)) reply.header('Preference-Applied', 'return=minimal')
    return reply.send()
  }
  return reply.type('application/json').send(result.json)
}
