import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { PUBLIC } from '../../access/plugin.js'
import { BadRequestError, InvalidJsonPathError } from '../../errors.js'
import { noneMatchHolds } from '../../http/conditional.js'
import type { AnswerCache } from '../answer-cache.js'
import { analyzeJsonPath } from '../jsonpath.js'
import { preparePatch } from '../json-patch.js'
import { prepareOperations } from '../operations.js'
import {
  acceptMediaTypes, addressOf, locationOf, conditionsOf, documentBodyOf, jsonBodyOf, prefersMinimal, setRecordHeaders,
  ttlMsOf
} from '../request.js'
import { READ_KEY, WRITE_KEY } from './access-rules.js'
import { documentRouteSchemas as schemas, type DocumentForm } from './document-route-schemas.js'
import type { StoredValue, WriteOptions, WriteResult } from '../store/index.js'
import { wantsEventStream } from '../../live/sse.js'

/** Both URL forms of the resource: the pointer in `?pointer=` or in the path. */
const URL_PATTERNS: Record<DocumentForm, string> = { document: '/docs/:key', path: '/docs/:key/*' }
/**
 * Longer bodies are sent as a Buffer: Node joins a string body to the response head, and writing the
 * joined string copies it once more on the JavaScript heap, where megabytes bring on full collections.
 */
const LARGE_BODY_LENGTH = 16 * 1024
const ALLOW = 'GET, HEAD, PUT, PATCH, POST, DELETE'
/** The Content-Type of a read's answer. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
const MERGE_PATCH = ['application/merge-patch+json', 'application/json']
const JSON_PATCH = 'application/json-patch+json'

interface WriteQuery { ttl?: number }

/**
 * The document resource: `/docs/{key}` and any location inside it, `/docs/{key}/{pointer...}` or
 * `/docs/{key}?pointer=`.
 */
export default async function documentRoutes (app: FastifyInstance, { maxDepth }: { maxDepth: number }) {
  for (const form of ['document', 'path'] as const) documentForm(app, form, maxDepth)
}

function documentForm (app: FastifyInstance, form: DocumentForm, maxDepth: number) {
  const store = app.documents
  const answers = app.answerCache
  const url = URL_PATTERNS[form]
  const writeOptions = (request: FastifyRequest<{ Querystring: WriteQuery }>, wantValue = !prefersMinimal(request)) => {
    const { ifMatch, ifNoneMatch } = conditionsOf(request)
    const options: WriteOptions = { ifMatch, ifNoneMatch, wantValue, ttlMs: ttlMsOf(request.query.ttl) }
    return options
  }

  app.get<{ Querystring: { jsonpath?: string } }>(url, {
    schema: schemas.read(form), config: { ...READ_KEY, liveStream: true }, preHandler: answerRemembered(answers)
  },
    async (request, reply) => {
      const address = addressOf(request, { namedLast: true })
      if (wantsEventStream(request)) return app.liveStreams.open(request, reply, address)
      const { jsonpath } = request.query
      if (jsonpath !== undefined && address.tokens.length > 0) {
        throw new BadRequestError('A JSONPath query applies to a whole document: use /docs/{key}?jsonpath=...')
      }
      if (jsonpath === undefined) {
        const stored = await store.read(address)
        // The URL names the answer: what reached here with it once, valid, would again.
        answers.remember(request.url, stored)
        return sendStored(request, reply, stored)
      }
      const verdict = analyzeJsonPath(jsonpath)
      if ('problem' in verdict) throw new InvalidJsonPathError(verdict.problem)
      return sendStored(request, reply, await store.query(address.key, jsonpath, verdict.shape))
    })

  app.put<{ Querystring: WriteQuery }>(url, {
    schema: schemas.put(form),
    config: WRITE_KEY,
    preValidation: acceptMediaTypes('application/json')
  }, async (request, reply) => {
    const address = addressOf(request, { namedLast: true })
    const body = documentBodyOf(request, address, maxDepth)
    return sendWrite(request, reply, await store.put(address, body, writeOptions(request)))
  })

  app.patch<{ Querystring: WriteQuery }>(url, {
    preValidation: acceptMediaTypes(...MERGE_PATCH, JSON_PATCH),
    schema: schemas.patch(form),
    config: WRITE_KEY
  }, async (request, reply) => {
    const isJsonPatch = request.headers['content-type']?.toLowerCase().startsWith(JSON_PATCH) === true
    const address = addressOf(request, { namedLast: isJsonPatch })
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
    config: WRITE_KEY,
    preValidation: acceptMediaTypes('application/json')
  }, async (request, reply) => {
    const address = addressOf(request)
    const body = jsonBodyOf(request)
    const operations = prepareOperations(body, address.tokens, maxDepth)
    const outcome = await store.operate(address, operations, writeOptions(request, false))
    setRecordHeaders(reply, outcome)
    const json = Array.isArray(body.value)
      ? `{"results":[${outcome.results.join(',')}]}`
      : `{"result":${outcome.results[0]}}`
    return reply.type('application/json').send(json)
  })

  app.delete(url, { schema: schemas.remove(form), config: WRITE_KEY }, async (request, reply) => {
    const result = await store.remove(addressOf(request, { namedLast: true }), conditionsOf(request))
    setRecordHeaders(reply, result)
    return reply.code(204).send()
  })

  app.options(url, { schema: schemas.options(form), config: { access: PUBLIC } }, async (_request, reply) => {
    return reply.header('Allow', ALLOW).code(204).send()
  })
}

/**
 * The read routes' preHandler: answers a read the answer cache holds, else leaves it to the handler. A
 * route-level preHandler runs after every global hook of every earlier step (onRequest, preParsing,
 * preValidation, preHandler), so access checks, rate limits and metrics see cached reads too, whichever
 * step they hook; and after validation, so a cached answer is sent only to a request the handler would
 * have served (a malformed If-None-Match is still 400).
 */
function answerRemembered (answers: AnswerCache) {
  return function answerFromCache (request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const remembered = wantsEventStream(request) ? undefined : answers.recall(request.url)
    if (remembered === undefined) return done()
    sendStored(request, reply, remembered)
  }
}

/** A read's body as sent: long ones as a Buffer (see LARGE_BODY_LENGTH). */
function bodyOf (json: string): string | Buffer {
  return json.length > LARGE_BODY_LENGTH ? Buffer.from(json) : json
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
