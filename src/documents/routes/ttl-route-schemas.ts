import { emptyResponse, jsonResponse, problemResponses, requestHeaderSchema } from '../../openapi/components.js'
import { bodyRefs, keyParamsSchema as keyParams, noQuerySchema as noQuery } from '../body-schemas.js'

/** Route schemas of expiry: each validates and becomes an OpenAPI operation. */

const ttlAnswer = {
  $id: 'TtlAnswer',
  type: 'object',
  description: "A document's time to live",
  properties: {
    ttl: { type: ['number', 'null'], format: 'double', minimum: 0, description: 'Seconds left, or null without a time to live' }
  },
  required: ['ttl'],
  additionalProperties: false
} as const

const ttlProblems = problemResponses(400, 404, 409, 412)

export const ttlSchemas = {
  get: {
    operationId: 'getTtl',
    tags: ['expiry'],
    summary: "A document's time to live",
    params: keyParams,
    querystring: noQuery,
    response: {
      200: jsonResponse('The time to live', { $ref: 'TtlAnswer#' }, { headers: ['ETag', 'Expires-In'], examples: { set: { ttl: 59.87 } } }),
      ...ttlProblems
    }
  },
  put: {
    operationId: 'putTtl',
    tags: ['expiry'],
    summary: "Set a document's time to live",
    description: 'Does not change the ETag.',
    params: keyParams,
    querystring: noQuery,
    headers: requestHeaderSchema('If-Match'),
    body: bodyRefs.ttl,
    response: {
      200: jsonResponse('The time to live now', { $ref: 'TtlAnswer#' }, { headers: ['ETag', 'Expires-In'] }),
      ...ttlProblems
    }
  },
  delete: {
    operationId: 'deleteTtl',
    tags: ['expiry'],
    summary: "Remove a document's time to live",
    params: keyParams,
    querystring: noQuery,
    headers: requestHeaderSchema('If-Match'),
    response: { 204: emptyResponse('The document no longer expires', ['ETag']), ...ttlProblems }
  }
}

/** The named answer schemas of these routes, registered once for serializers and the description. */
export const ttlAnswerSchemas: ReadonlyArray<{ $id: string }> = [ttlAnswer]
