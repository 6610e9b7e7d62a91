/**
 * JSON Schemas of the service's own request bodies and query strings: each validates requests and
 * documents the route. Documents themselves are any JSON and are never validated here.
 */

import { CONDITION_HEADER_PATTERN } from '../http/conditional.js'

/** A JSON Pointer (RFC 6901): empty, or "/" tokens in which "~" only escapes "0" or "1". */
export const jsonPointerSchema = { type: 'string', pattern: '^(/([^~]|~[01])*)*$', maxLength: 4096 } as const

/** The same pointer as URL path segments after `/docs/{key}/`, percent-decoded: without its first "/". */
export const pathPointerSchema = { type: 'string', pattern: '^([^~]|~[01])*$' } as const

const anyJson = {}
const arrayIndex = { type: 'integer', format: 'int32', minimum: -2147483648, maximum: 2147483647 } as const
const at = { path: { ...jsonPointerSchema, description: 'Pointer relative to the URL location; "" or absent: the location itself' } }

/** Seconds from now; fractions allowed (ms precision). Ten years at most. */
export const ttlSchema = { type: 'number', format: 'double', exclusiveMinimum: 0, maximum: 315_360_000 } as const

export const MAX_OPERATIONS = 100
export const MAX_PATCH_OPERATIONS = 1000
export const MAX_BATCH_ITEMS = 1000

/** `incr` -> IncrOperation: the `$id` of a named schema, referenced wherever it is used. */
const schemaName = (op: string, suffix: string) => op[0]!.toUpperCase() + op.slice(1) + suffix

function operation (op: string, properties: Record<string, unknown>, required: string[], description: string) {
  return {
    $id: schemaName(op, 'Operation'),
    type: 'object',
    description,
    properties: { op: { type: 'string', const: op }, ...at, ...properties },
    required: ['op', ...required],
    additionalProperties: false
  }
}

/** Any JSON number; `double` keeps generated clients from narrowing it (oapi-codegen makes a bare number float32). */
const double = { type: 'number', format: 'double' } as const

const operationSchemas = [
  operation('incr', { by: double }, ['by'], 'Adds `by` to a number (JSON.NUMINCRBY); result: the new number'),
  operation('mult', { by: double }, ['by'], 'Multiplies a number by `by` (JSON.NUMMULTBY); result: the new number'),
  operation('append', { value: { type: 'string' } }, ['value'], 'Appends to a string (JSON.STRAPPEND); result: the new length'),
  operation('push', { values: { type: 'array', minItems: 1, maxItems: 1000, items: anyJson } }, ['values'],
    'Appends values to an array (JSON.ARRAPPEND); result: the new length'),
  operation('insert', { index: arrayIndex, values: { type: 'array', minItems: 1, maxItems: 1000, items: anyJson } },
    ['index', 'values'], 'Inserts values before `index`, negative from the end (JSON.ARRINSERT); result: the new length'),
  operation('pop', { index: arrayIndex }, [], 'Removes and returns the element at `index` (default -1, the last) (JSON.ARRPOP)'),
  operation('trim', { start: arrayIndex, stop: arrayIndex }, ['start', 'stop'],
    'Keeps elements `start` to `stop` inclusive (JSON.ARRTRIM); result: the new length'),
  operation('indexOf', { value: anyJson, start: arrayIndex, stop: arrayIndex }, ['value'],
    'First index of a scalar `value`, or -1 (JSON.ARRINDEX)'),
  operation('toggle', {}, [], 'Flips a boolean (JSON.TOGGLE); result: the new value'),
  operation('clear', {}, [], 'Empties an array or object, or sets a number to 0 (JSON.CLEAR); result: the new value')
]

/** One operation of POST /docs/{key}/{pointer}, told apart by `op`. */
const operationSchema = {
  $id: 'Operation',
  type: 'object',
  description: 'One RedisJSON operation, by `op`',
  discriminator: { propertyName: 'op' },
  required: ['op'],
  oneOf: operationSchemas.map((schema) => ({ $ref: `${schema.$id}#` }))
} as const

const operationListSchema = {
  $id: 'OperationList',
  type: 'array',
  description: 'Operations applied in order, atomically: all or none',
  minItems: 1,
  maxItems: MAX_OPERATIONS,
  items: { $ref: 'Operation#' }
} as const

/**
 * The body of POST /docs/{key}/{pointer}: one operation or a list. A named component, so that generated
 * clients get a type of their own for the union (inline, oapi-codegen sends it as `{}`).
 */
const operationBodySchema = {
  $id: 'OperationBody',
  description: 'One operation (answered with `result`) or a list of them (answered with `results`)',
  oneOf: [{ $ref: 'Operation#' }, { $ref: 'OperationList#' }],
  examples: [{ op: 'incr', by: 1 }, [{ op: 'push', values: ['b'], path: '/tags' }, { op: 'incr', by: 1, path: '/age' }]]
} as const

/** The body schemas that routes reference. */
export const bodyRefs = {
  operations: { $ref: 'OperationBody#' },
  jsonPatch: { $ref: 'JsonPatch#' },
  batchRead: { $ref: 'BatchReadBody#' },
  batchWrite: { $ref: 'BatchWriteBody#' },
  ttl: { $ref: 'TtlBody#' }
} as const

function patchOperation (op: string, required: string[]) {
  const properties: Record<string, unknown> = { op: { type: 'string', const: op }, path: jsonPointerSchema }
  if (required.includes('from')) properties.from = jsonPointerSchema
  if (required.includes('value')) properties.value = anyJson
  return { $id: schemaName(op, 'PatchOperation'), type: 'object', properties, required: ['op', 'path', ...required] }
}

const patchOperationSchemas = [
  patchOperation('add', ['value']),
  patchOperation('remove', []),
  patchOperation('replace', ['value']),
  patchOperation('move', ['from']),
  patchOperation('copy', ['from']),
  patchOperation('test', ['value'])
]

const jsonPatchOperationSchema = {
  $id: 'JsonPatchOperation',
  type: 'object',
  description: 'One JSON Patch operation (RFC 6902), by `op`',
  discriminator: { propertyName: 'op' },
  required: ['op', 'path'],
  oneOf: patchOperationSchemas.map((schema) => ({ $ref: `${schema.$id}#` }))
} as const

/** A JSON Patch document (RFC 6902). */
const jsonPatchSchema = {
  $id: 'JsonPatch',
  type: 'array',
  description: 'A JSON Patch (RFC 6902), paths relative to the URL location: all operations apply or none',
  maxItems: MAX_PATCH_OPERATIONS,
  items: { $ref: 'JsonPatchOperation#' },
  examples: [[{ op: 'add', path: '/tags/-', value: 'b' }, { op: 'test', path: '/age', value: 30 }]]
} as const

/**
 * A document key (in a URL path, once percent-decoded): no control characters, at most 1024 characters
 * (the pointer module also bounds its UTF-8 bytes, which JSON Schema cannot count).
 */
export const keySchema = { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$' } as const

export const keyParamSchema = {
  ...keySchema,
  description: 'The document key: 1 to 1024 bytes of UTF-8 without control characters, percent-encoded (a "/" in a key is %2F)'
} as const

/** Path parameters of the routes about one whole document. */
export const keyParamsSchema = { type: 'object', properties: { key: keyParamSchema } } as const
const entityTagList = { type: 'string', pattern: CONDITION_HEADER_PATTERN, description: 'As the If-Match / If-None-Match header' } as const

const batchReadBodySchema = {
  $id: 'BatchReadBody',
  type: 'object',
  description: 'The keys to read and the location to read in each document',
  properties: {
    keys: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ITEMS, items: keySchema },
    pointer: { ...jsonPointerSchema, description: 'RFC 6901 JSON Pointer read in every document; "" or absent: the whole document' }
  },
  required: ['keys'],
  additionalProperties: false,
  examples: [{ keys: ['user:1', 'user:2'], pointer: '/name' }]
} as const

const batchWriteItemSchema = {
  $id: 'BatchWriteItem',
  type: 'object',
  description: 'One whole document to write, with its own preconditions and time to live',
  properties: {
    key: keySchema,
    value: { description: 'The document: any JSON value' },
    ifMatch: entityTagList,
    ifNoneMatch: entityTagList,
    ttl: ttlSchema
  },
  required: ['key', 'value'],
  additionalProperties: false
} as const

const batchWriteBodySchema = {
  $id: 'BatchWriteBody',
  type: 'object',
  description: 'Whole documents to write in one atomic script',
  properties: { items: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ITEMS, items: { $ref: 'BatchWriteItem#' } } },
  required: ['items'],
  additionalProperties: false,
  examples: [{ items: [{ key: 'user:1', value: { name: 'Ann' }, ifNoneMatch: '*' }] }]
} as const

const ttlBodySchema = {
  $id: 'TtlBody',
  type: 'object',
  description: 'The time to live to set, in seconds',
  properties: { ttl: ttlSchema },
  required: ['ttl'],
  additionalProperties: false,
  examples: [{ ttl: 60 }]
} as const

/** Schemas with an `$id`, for the validators, the serializers and the OpenAPI components alike. */
export const sharedSchemas: ReadonlyArray<{ $id: string }> = [
  ...operationSchemas, operationSchema, operationListSchema, operationBodySchema,
  ...patchOperationSchemas, jsonPatchOperationSchema, jsonPatchSchema,
  batchReadBodySchema, batchWriteItemSchema, batchWriteBodySchema, ttlBodySchema
]

export const writeQuerySchema = {
  type: 'object',
  properties: { ttl: { ...ttlSchema, description: 'Time to live in seconds, set atomically with the write' } },
  additionalProperties: false
} as const

/** The query parameters of a live stream (a read with `Accept: text/event-stream`). */
export const liveStreamQuery = {
  since: {
    type: 'string',
    pattern: '^\\d{1,20}-\\d{1,20}(-\\d{1,5})?$',
    description: 'Live streams: continue after the event with this id, as `Last-Event-ID` does (which takes precedence); a prefix stream on a Redis Cluster names the slot too (`<ms>-<seq>-<slot>`)'
  },
  ticket: {
    type: 'string',
    maxLength: 128,
    description: 'Live streams: a stream ticket (POST /streams/tickets) in place of an Authorization header, for EventSource'
  }
} as const

export const readQuerySchema = {
  type: 'object',
  properties: {
    jsonpath: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'A read-only JSONPath over the whole document, starting with `$`. 400 when RedisJSON refuses it or ' +
        'the service screens it out (see Cost limits in docs/api.md), and beside a `pointer` other than ""'
    },
    ...liveStreamQuery
  },
  additionalProperties: false
} as const

export const listQuerySchema = {
  type: 'object',
  properties: {
    prefix: { type: 'string', default: '', maxLength: 1024 },
    limit: { type: 'integer', format: 'int32', minimum: 1, maximum: 1000, default: 100 },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'Opaque: the `cursor` a page of this listing (the same `prefix`) answered with. Any other is 400'
    },
    ...liveStreamQuery
  },
  additionalProperties: false
} as const

/** The query string of routes that take no parameters. */
export const noQuerySchema = { type: 'object', properties: {}, additionalProperties: false } as const
