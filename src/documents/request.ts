import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  BadRequestError, UnaddressableError, UnstorableJsonError, UnsupportedMediaTypeError
} from '../errors.js'
import { etagOf, versionCondition } from '../http/conditional.js'
import { mediaTypeOf } from '../http/json-parser.js'
import { rawWildcardOf } from '../http/raw-wildcard.js'
import type { JsonBody } from './json-body.js'
import { parseDocumentAddress, unaddressableToken, unwritableToken, type DocumentAddress } from './pointer.js'
import type { VersionRecord, WriteConditions } from './store/index.js'

/** Which members a request's pointer may name, beyond those any RedisJSON path reaches. */
export interface AddressRules {
  /** A last token that no RedisJSON path expresses, for the methods whose scripts reach it another way. */
  namedLast?: boolean
  /**
   * Tokens whose path step needs escapes, which RedisJSON reads through but its writes (and length
   * counts) miss. By default only GET and HEAD pass through them.
   */
  throughEscapes?: boolean
}

/**
 * The document address a request names with its route's parameters: the `key`, and the pointer in the
 * path (the route's wildcard, read as sent so that `%2F` stays inside its token) or in `?pointer=`.
 */
export function addressOf (request: FastifyRequest, rules: AddressRules = {}): DocumentAddress {
  const parsed = parsedAddressOf(request)
  const { namedLast = false, throughEscapes = request.method === 'GET' || request.method === 'HEAD' } = rules
  const unaddressable = (throughEscapes ? unaddressableToken : unwritableToken)(parsed.tokens, namedLast)
  if (unaddressable !== undefined) throw new UnaddressableError(unaddressable)
  return parsed
}

/**
 * The document key a request's route params name, read as addressOf reads it: what access checks before
 * the route runs. A malformed address is the 400 the route would answer.
 */
export function documentKeyOf (request: FastifyRequest): string {
  return parsedAddressOf(request).key
}

function parsedAddressOf (request: FastifyRequest): DocumentAddress {
  const { key } = request.params as { key: string }
  const parsed = parseDocumentAddress(key, rawWildcardOf(request), queryPointerOf(request))
  if ('problem' in parsed) throw new BadRequestError(parsed.problem)
  return parsed
}

/**
 * The `?pointer=` parameter as sent. Read from the URL rather than the validated query, so that a route
 * form whose schema leaves it out still refuses it instead of silently ignoring it.
 */
function queryPointerOf (request: FastifyRequest): string | undefined {
  const search = request.url.indexOf('?')
  return search === -1 ? undefined : new URLSearchParams(request.url.slice(search)).get('pointer') ?? undefined
}

/** The URL of what a write created: its path, and its `?pointer=` when it was addressed that way. */
export function locationOf (request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0]!
  const pointer = queryPointerOf(request)
  return pointer === undefined ? path : `${path}?pointer=${encodeURIComponent(pointer)}`
}

/** A preValidation hook answering 415 to a body in any media type but these, before schemas run. */
export function acceptMediaTypes (...accepted: string[]) {
  return async function checkMediaType (request: FastifyRequest) {
    if (!request.json) return
    const mediaType = mediaTypeOf(request.headers['content-type'])
    if (!accepted.includes(mediaType)) {
      throw new UnsupportedMediaTypeError(`${request.method} here takes ${accepted.join(' or ')}, not "${mediaType}"`)
    }
  }
}

/** The request's JSON body (its media type already checked by acceptMediaTypes). */
export function jsonBodyOf (request: FastifyRequest): JsonBody {
  if (!request.json) throw new BadRequestError('A JSON body is required')
  return request.json
}

/** A body that becomes a document's content, provided the document stays within the depth limit. */
export function documentBodyOf (request: FastifyRequest, address: DocumentAddress, maxDepth: number): JsonBody {
  const body = jsonBodyOf(request)
  if (address.tokens.length + body.depth > maxDepth) {
    throw new UnstorableJsonError(`The document would nest deeper than ${maxDepth} levels`)
  }
  return body
}

export function conditionsOf (request: FastifyRequest): WriteConditions {
  return {
    ifMatch: versionCondition(request.headers['if-match'], 'If-Match'),
    ifNoneMatch: versionCondition(request.headers['if-none-match'], 'If-None-Match')
  }
}

/** RFC 7240 `Prefer: return=minimal`: answer a write without the stored value. */
export function prefersMinimal (request: FastifyRequest): boolean {
  return /\breturn\s*=\s*"?minimal\b/i.test(String(request.headers.prefer ?? ''))
}

/** The `ttl` query parameter (seconds) in milliseconds, at least 1. */
export function ttlMsOf (seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : Math.max(1, Math.round(seconds * 1000))
}

/** Seconds a document has left, rounded up, for `Expires-In` and TTL bodies. */
export function secondsLeft (expiresAt: number): number {
  return Math.max(0, Math.ceil((expiresAt - Date.now()) / 1000))
}

/**
 * Adds to headers the ETag of the version, and `Expires-In` (seconds) when the document has a time to
 * live. Properties are added one by one: an object spread here made V8 promote every response's headers
 * to the old generation, which cost cached reads a fifth of their throughput.
 */
export function recordHeaders<H extends Record<string, string | number>> (record: Partial<VersionRecord>, headers: H): H {
  const added: Record<string, string | number> = headers
  if (record.version) added['etag'] = etagOf(record.version)
  if (record.expiresAt !== undefined) added['expires-in'] = String(secondsLeft(record.expiresAt))
  return headers
}

export function setRecordHeaders (reply: FastifyReply, record: Partial<VersionRecord>): void {
  reply.headers(recordHeaders(record, {}))
}
