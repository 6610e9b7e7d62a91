import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  BadRequestError, MethodNotAllowedError, UnaddressableError, UnstorableJsonError, UnsupportedMediaTypeError
} from '../errors.js'
import { etagOf, noneMatchHolds, versionCondition } from '../http/conditional.js'
import { mediaTypeOf, type JsonMediaType } from '../http/json-parser.js'
import { parseDocumentAddress, unaddressableToken, type DocumentAddress } from './pointer.js'
import type { WriteConditions, WriteResult } from './store.js'

export interface DocumentRoutesOptions {
  maxDepth: number
}

const URL_PATTERN = '/docs/*'
const URL_PREFIX = '/docs/'
const ALLOWED_METHODS = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']
const ALLOW = ALLOWED_METHODS.join(', ')

/** The document resource: `/docs/{key}` and any location inside it, `/docs/{key}/{pointer...}`. */
export default async function documentRoutes (app: FastifyInstance, options: DocumentRoutesOptions) {
  const store = app.documents

  app.get(URL_PATTERN, async (request, reply) => {
    const stored = await store.read(addressOf(request))
    reply.header('ETag', etagOf(stored.version))
    if (!noneMatchHolds(request.headers['if-none-match'], stored.version)) return reply.code(304).send()
    return reply.type('application/json').send(stored.json)
  })

  app.put(URL_PATTERN, async (request, reply) => {
    const address = addressOf(request)
    const body = documentBody(request, address, options.maxDepth)
    requireMediaType(request, ['application/json'])
    const result = await store.put(address, body.text, conditionsOf(request), !prefersMinimal(request))
    return sendWrite(request, reply, result)
  })

  app.patch(URL_PATTERN, async (request, reply) => {
    const address = addressOf(request)
    const body = documentBody(request, address, options.maxDepth)
    requireMediaType(request, ['application/merge-patch+json', 'application/json'])
    const result = await store.merge(address, body, conditionsOf(request), !prefersMinimal(request))
    return sendWrite(request, reply, result)
  })

  app.delete(URL_PATTERN, async (request, reply) => {
    const result = await store.remove(addressOf(request), conditionsOf(request))
    if (result.version) reply.header('ETag', etagOf(result.version))
    return reply.code(204).send()
  })

  app.route({
    method: app.supportedMethods.filter((method) => !ALLOWED_METHODS.includes(method)),
    url: URL_PATTERN,
    handler: async (request, reply) => {
      reply.header('Allow', ALLOW)
      if (request.method === 'OPTIONS') return reply.code(204).send()
      throw new MethodNotAllowedError(request.method, ALLOW)
    }
  })
}

function addressOf (request: FastifyRequest): DocumentAddress {
  const path = request.url.split('?', 1)[0]!
  const parsed = parseDocumentAddress(path.slice(URL_PREFIX.length))
  if ('problem' in parsed) throw new BadRequestError(parsed.problem)
  const unaddressable = unaddressableToken(parsed.tokens)
  if (unaddressable !== undefined) throw new UnaddressableError(unaddressable)
  return parsed
}

function requireMediaType (request: FastifyRequest, accepted: readonly JsonMediaType[]): void {
  const mediaType = mediaTypeOf(request.headers['content-type'])
  if (!(accepted as readonly string[]).includes(mediaType)) {
    throw new UnsupportedMediaTypeError(`${request.method} takes ${accepted.join(' or ')}, not "${mediaType || 'no content type'}"`)
  }
}

/** The request's JSON body, provided the document it produces stays within the depth limit. */
function documentBody (request: FastifyRequest, address: DocumentAddress, maxDepth: number) {
  const body = request.json
  if (!body) throw new BadRequestError('A JSON body is required')
  if (address.tokens.length + body.depth > maxDepth) {
    throw new UnstorableJsonError(`The document would nest deeper than ${maxDepth} levels`)
  }
  return body
}

function conditionsOf (request: FastifyRequest): WriteConditions {
  return {
    ifMatch: versionCondition(request.headers['if-match'], 'If-Match'),
    ifNoneMatch: versionCondition(request.headers['if-none-match'], 'If-None-Match')
  }
}

/** RFC 7240 `Prefer: return=minimal`: answer a write without the stored value. */
function prefersMinimal (request: FastifyRequest): boolean {
  return /\breturn\s*=\s*"?minimal\b/i.test(String(request.headers.prefer ?? ''))
}

function sendWrite (request: FastifyRequest, reply: FastifyReply, result: WriteResult) {
  if (result.version) reply.header('ETag', etagOf(result.version))
  if (result.created) reply.code(201).header('Location', request.url.split('?', 1)[0])
  if (result.json === undefined) {
    if (prefersMinimal(request)) reply.header('Preference-Applied', 'return=minimal')
    return reply.send()
  }
  return reply.type('application/json').send(result.json)
}
