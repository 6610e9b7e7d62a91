import { emptyResponse, jsonResponse, problemResponses, requestHeaderSchema } from '../openapi/components.js'
import {
  batchReadBodySchema, batchWriteBodySchema, jsonPointerSchema, keyParamSchema, listQuerySchema, pathPointerSchema, ttlBodySchema
} from './schemas.js'

/** Route schemas of listing, batches, expiry and description: each validates and becomes an OpenAPI operation. */

const keyParams = { type: 'object', properties: { key: keyParamSchema } } as const

const etag = { type: 'string', pattern: '^"[0-9]+"$' } as const

/** A batch's answer: `items`, one per key in the request's order, each with its key and status. */
function batchItems (itemProperties: Record<string, unknown>) {
  return {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { key: { type: 'string' }, ...itemProperties },
          required: ['key', 'status'],
          additionalProperties: false
        }
      }
    },
    required: ['items'],
    additionalProperties: false
  }
}

export const listSchema = {
  operationId: 'listDocuments',
  tags: ['listing'],
  summary: 'List document keys by prefix',
  description: 'Pages through the keys that start with `prefix` (SCAN, never KEYS). While there is more, the answer ' +
    'carries a cursor and a `Link: <...>; rel="next"` header; a page holds about `limit` keys.',
  querystring: listQuerySchema,
  response: {
    200: jsonResponse('A page of keys', {
      type: 'object',
      properties: {
        keys: { type: 'array', items: { type: 'string' } },
        cursor: { type: ['string', 'null'], description: 'Pass back as `cursor` for the next page; null on the last page' }
      },
      required: ['keys', 'cursor'],
      additionalProperties: false
    }, { headers: ['Link'], examples: { page: { keys: ['user:1', 'user:2'], cursor: null } } }),
    ...problemResponses(400)
  }
}

export const batchReadSchema = {
  operationId: 'readBatch',
  tags: ['batch'],
  summary: 'Read the same location in many documents',
  body: { ...batchReadBodySchema, examples: [{ keys: ['user:1', 'user:2'], pointer: '/name' }] },
  response: {
    200: jsonResponse('One item per key, in order', batchItems({
      status: { type: 'integer', enum: [200, 404, 409], description: '409: the key holds no JSON document' },
      etag,
      expiresIn: { type: 'integer', minimum: 0 },
      value: { description: 'The value at the pointer (status 200)' }
    }), { examples: { two: { items: [{ key: 'user:1', status: 200, etag: '"17"', value: 'Ann' }, { key: 'user:2', status: 404 }] } } }),
    ...problemResponses(400, 422)
  }
}

export const batchWriteSchema = {
  operationId: 'writeBatch',
  tags: ['batch'],
  summary: 'Write many whole documents atomically',
  description: 'Each item succeeds or fails on its own precondition and, in a collection with a schema, its own ' +
    'validation (status 422 with `errors`); a malformed item refuses the whole batch before anything is written.',
  body: { ...batchWriteBodySchema, examples: [{ items: [{ key: 'user:1', value: { name: 'Ann' }, ifNoneMatch: '*' }] }] },
  response: {
    200: jsonResponse('One status per item, in order', batchItems({
      status: { type: 'integer', enum: [200, 201, 409, 412, 422] },
      etag,
      errors: {
        type: 'array',
        items: { $ref: 'ValidationError#' },
        description: 'Status 422: where the item departs from its collection schema'
      }
    }), { examples: { one: { items: [{ key: 'user:1', status: 201, etag: '"18"' }] } } }),
    ...problemResponses(400, 422)
  }
}

const ttlAnswer = {
  type: 'object',
  properties: { ttl: { type: ['number', 'null'], minimum: 0, description: 'Seconds left, or null without a time to live' } },
  required: ['ttl'],
  additionalProperties: false
} as const

const ttlProblems = problemResponses(400, 404, 409, 412)
const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const

export const ttlSchemas = {
  get: {
    operationId: 'getTtl',
    tags: ['expiry'],
    summary: "A document's time to live",
    params: keyParams,
    querystring: noQuery,
    response: {
      200: jsonResponse('The time to live', ttlAnswer, { headers: ['ETag', 'Expires-In'], examples: { set: { ttl: 59.87 } } }),
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
    body: { ...ttlBodySchema, examples: [{ ttl: 60 }] },
    response: {
      200: jsonResponse('The time to live now', ttlAnswer, { headers: ['ETag', 'Expires-In'] }),
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

const description = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'] },
    length: { type: 'integer', minimum: 0, description: 'Of strings, arrays and objects' },
    keys: { type: 'array', items: { type: 'string' }, description: 'Member names of objects' },
    memory: { type: 'integer', minimum: 0, description: 'Bytes RedisJSON uses for the value' }
  },
  required: ['type', 'memory'],
  additionalProperties: false
} as const

/** GET /meta/{key} (the pointer in `?pointer=`) and /meta/{key}/{pointer}. */
export function metaSchema (form: 'document' | 'path') {
  const path = form === 'path'
  return {
    operationId: path ? 'describeValueAtPath' : 'describeValue',
    tags: ['documents'],
    summary: 'Describe a value: its type, length, member names and memory',
    params: path
      ? { type: 'object', properties: { ...keyParams.properties, '*': { ...pathPointerSchema, description: 'JSON Pointer segments, as in /docs/{key}/{pointer}' } } }
      : keyParams,
    querystring: path
      ? noQuery
      : { type: 'object', properties: { pointer: { ...jsonPointerSchema, description: 'RFC 6901 JSON Pointer inside the document' } }, additionalProperties: false },
    response: {
      200: jsonResponse('The description', description,
        { headers: ['ETag', 'Expires-In'], examples: { object: { type: 'object', length: 2, keys: ['name', 'tags'], memory: 120 } } }),
      ...problemResponses(400, 404, 409, 422)
    }
  }
}
