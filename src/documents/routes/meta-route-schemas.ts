import { jsonResponse, problemResponses } from '../../openapi/components.js'
import {
  jsonPointerSchema, keyParamsSchema as keyParams, noQuerySchema as noQuery, pathPointerSchema
} from '../body-schemas.js'

/** Route schemas of the description of values: each validates and becomes an OpenAPI operation. */

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
export const metaAnswerSchemas: ReadonlyArray<{ $id: string }> = [valueDescription]
