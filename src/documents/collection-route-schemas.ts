import { emptyResponse, jsonResponse, problemResponses, requestHeaderSchema } from '../openapi/components.js'
import { bodyRefs, jsonPointerSchema, keyParamSchema, listQuerySchema, pathPointerSchema } from './schemas.js'

/** Route schemas of listing, batches, expiry and description: each validates and becomes an OpenAPI operation. */

const keyParams = { type: 'object', properties: { key: keyParamSchema } } as const

const etag = { type: 'string', pattern: '^"[0-9]+"$' } as const

/** A batch's answer: `items`, one per key in the request's order, each with its key and status. */
function batchAnswer (name: string, description: string, itemName: string, itemDescription: string,
  itemProperties: Record<string, unknown>) {
  const item = {
    $id: itemName,
    type: 'object',
    description: itemDescription,
    properties: { key: { type: 'string', description: 'The key, as in the request' }, ...itemProperties },
    required: ['key', 'status'],
    additionalProperties: false
  }
  const answer = {
    $id: name,
    type: 'object',
    description,
    properties: { items: { type: 'array', items: { $ref: `${itemName}#` } } },
    required: ['items'],
    additionalProperties: false
  }
  return [answer, item] as const
}

const batchReadAnswer = batchAnswer('BatchReadAnswer', 'One item per key, in the order of the request', 'BatchReadItem',
  "One key's answer: its status and, for 200, the document's ETag and the value", {
  status: { type: 'integer', enum: [200, 403, 404, 409], description: '403: the key is outside the credentials\' read scopes; 409: the key holds no JSON document' },
  etag,
  expiresIn: { type: 'integer', format: 'int64', minimum: 0, description: 'Seconds the document has left, when it has a time to live' },
  value: { description: 'The value at the pointer (status 200)' }
})

const batchWriteAnswer = batchAnswer('BatchWriteAnswer', 'One status per item, in the order of the request', 'BatchWriteResult',
  "One item's outcome: its status and the document's ETag, or for 422 where it breaks its collection schema", {
  status: { type: 'integer', enum: [200, 201, 403, 409, 412, 422], description: '403: the key is outside the credentials\' write scopes, and the item was not written' },
  etag,
  errors: {
    type: 'array',
    items: { $ref: 'ValidationError#' },
    description: 'Status 422: where the item departs from its collection schema'
  }
})

const documentPage = {
  $id: 'DocumentPage',
  type: 'object',
  description: 'A page of document keys',
  properties: {
    keys: { type: 'array', items: { type: 'string' } },
    cursor: { type: ['string', 'null'], description: 'Pass back as `cursor` for the next page; null on the last page' }
  },
  required: ['keys', 'cursor'],
  additionalProperties: false
} as const

export const listSchema = {
  operationId: 'listDocuments',
  tags: ['listing'],
  summary: 'List document keys by prefix',
  description: 'Pages through the keys that start with `prefix` (SCAN, never KEYS). While there is more, the answer ' +
    'carries a cursor and a `Link: <...>; rel="next"` header; a page holds about `limit` keys.',
  querystring: listQuerySchema,
  response: {
    200: jsonResponse('A page of keys', { $ref: 'DocumentPage#' },
      { headers: ['Link'], examples: { page: { keys: ['user:1', 'user:2'], cursor: null } } }),
    ...problemResponses(400)
  }
}

export const batchReadSchema = {
  operationId: 'readBatch',
  tags: ['batch'],
  summary: 'Read the same location in many documents',
  body: bodyRefs.batchRead,
  response: {
    200: jsonResponse('One item per key, in order', { $ref: 'BatchReadAnswer#' }, { examples: { two: { items: [{ key: 'user:1', status: 200, etag: '"17"', value: 'Ann' }, { key: 'user:2', status: 404 }] } } }),
    ...problemResponses(400, 422)
  }
}

export const batchWriteSchema = {
  operationId: 'writeBatch',
  tags: ['batch'],
  summary: 'Write many whole documents atomically',
  description: 'Each item succeeds or fails on its own precondition and, in a collection with a schema, its own ' +
    'validation (status 422 with `errors`); a malformed item refuses the whole batch before anything is written.',
  body: bodyRefs.batchWrite,
  response: {
    200: jsonResponse('One status per item, in order', { $ref: 'BatchWriteAnswer#' }, { examples: { one: { items: [{ key: 'user:1', status: 201, etag: '"18"' }] } } }),
    ...problemResponses(400, 422)
  }
}

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
const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const

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

const valueDescription = {
  $id: 'ValueDescription',
  type: 'object',
  description: 'What a value is, as RedisJSON sees it',
  properties: {
    type: { type: 'string', enum: ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'] },
    length: { type: 'integer', format: 'int64', minimum: 0, description: 'Of strings, arrays and objects' },
    keys: { type: 'array', items: { type: 'string' }, description: 'Member names of objects' },
    memory: { type: 'integer', format: 'int64', minimum: 0, description: 'Bytes RedisJSON uses for the value' }
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
      200: jsonResponse('The description', { $ref: 'ValueDescription#' },
        { headers: ['ETag', 'Expires-In'], examples: { object: { type: 'object', length: 2, keys: ['name', 'tags'], memory: 120 } } }),
      ...problemResponses(400, 404, 409, 422)
    }
  }
}

/** The named answer schemas of these routes, registered once for serializers and the description. */
export const collectionAnswerSchemas: ReadonlyArray<{ $id: string }> = [
  documentPage, ...batchReadAnswer, ...batchWriteAnswer, ttlAnswer, valueDescription
]
