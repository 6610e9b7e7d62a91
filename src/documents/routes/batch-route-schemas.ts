import { jsonResponse, problemResponses } from '../../openapi/components.js'
import { bodyRefs } from '../body-schemas.js'

/** Route schemas of batch reads and writes: each validates and becomes an OpenAPI operation. */

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

/** The named answer schemas of these routes, registered once for serializers and the description. */
export const batchAnswerSchemas: ReadonlyArray<{ $id: string }> = [...batchReadAnswer, ...batchWriteAnswer]
