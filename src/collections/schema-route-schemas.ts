import { emptyResponse, headers, jsonResponse, problemResponses, requestHeaderSchema } from '../openapi/components.js'

/** Route schemas of `/schemas`: each validates the service's own inputs and becomes an OpenAPI operation. */

const etag = { type: 'string', pattern: '^"[0-9]+"$' } as const

/**
 * The `{collection}` parameter: the rules checkCollectionName applies, as far as JSON Schema says them. It
 * counts characters, not the UTF-8 bytes the service bounds, so a long name of wide characters may
 * still be 400.
 */
export function collectionParams (separator: string) {
  const controls = '\\u0000-\\u001F\\u007F-\\u009F'
  const pattern = separator.length === 1
    ? `^[^${controls}${escapeInClass(separator)}]*$`
    : `^(?!.*${escapeRegExp(separator)})[^${controls}]*$`
  return {
    type: 'object',
    properties: {
      collection: {
        type: 'string',
        minLength: 1,
        maxLength: 1024,
        pattern,
        description: 'Collection name: the part of a document key before the separator (`users` for `users:42`): ' +
          `1 to 1024 bytes of UTF-8, without control characters or the separator (\`${separator}\`), percent-encoded`
      }
    },
    required: ['collection']
  } as const
}

/** A character as a member of a character class. */
function escapeInClass (character: string): string {
  return /[\\\]^-]/.test(character) ? '\\' + character : character
}

/** Escapes the characters with a meaning in a pattern; no others, since a `u` pattern refuses needless escapes. */
function escapeRegExp (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const

const exampleSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
  required: ['name']
}

/** Any JSON Schema 2020-12: an object or a boolean, checked against the meta-schema when compiled. */
const collectionSchema = {
  $id: 'CollectionSchema',
  description: 'A JSON Schema (draft 2020-12): an object, or true or false',
  oneOf: [{ type: 'object', additionalProperties: true }, { type: 'boolean' }],
  examples: [exampleSchema]
}

const violation = {
  $id: 'DocumentViolation',
  type: 'object',
  description: 'Where a stored document departs from the schema',
  properties: {
    pointer: { type: 'string', description: 'JSON Pointer into the document' },
    detail: { type: 'string' },
    keyword: { type: 'string' },
    schemaPath: { type: 'string' }
  },
  required: ['pointer', 'detail', 'keyword', 'schemaPath']
} as const

const conformanceExample = {
  $id: 'ConformanceExample',
  type: 'object',
  description: 'A document the schema rejects, and why',
  properties: { key: { type: 'string' }, errors: { type: 'array', items: { $ref: 'DocumentViolation#' } } },
  required: ['key', 'errors']
} as const

const conformanceReport = {
  $id: 'ConformanceReport',
  type: 'object',
  description: 'How the documents already in the collection fare against the schema. They are kept as they are.',
  properties: {
    checked: { type: 'integer', format: 'int32', minimum: 0 },
    violating: { type: 'integer', format: 'int32', minimum: 0, description: 'Documents the schema rejects' },
    complete: { type: 'boolean', description: 'False when the collection holds more documents than one report checks, or checking them took longer than MAX_VALIDATION_MS' },
    examples: { type: 'array', maxItems: 10, items: { $ref: 'ConformanceExample#' } }
  },
  required: ['checked', 'violating', 'complete', 'examples']
} as const

const registration = {
  $id: 'SchemaRegistration',
  type: 'object',
  description: 'The schema now registered, and how the documents already in the collection fare against it',
  properties: { collection: { type: 'string' }, etag, existingDocuments: { $ref: 'ConformanceReport#' } },
  required: ['collection', 'etag', 'existingDocuments'],
  additionalProperties: false
} as const

const collectionEntry = {
  $id: 'CollectionEntry',
  type: 'object',
  description: 'A collection that has a schema, and the ETag of that schema',
  properties: { collection: { type: 'string' }, etag },
  required: ['collection', 'etag'],
  additionalProperties: false
} as const

const collectionList = {
  $id: 'CollectionList',
  type: 'object',
  description: 'The collections that have a schema, by name',
  properties: { collections: { type: 'array', items: { $ref: 'CollectionEntry#' } } },
  required: ['collections'],
  additionalProperties: false
} as const

/** The named schemas of these routes, registered once for validators, serializers and the description. */
export const collectionSchemaComponents: ReadonlyArray<{ $id: string }> = [
  collectionSchema, violation, conformanceExample, conformanceReport, registration, collectionEntry, collectionList
]

const collectionSchemaRef = { $ref: 'CollectionSchema#' } as const

const registeredExample = {
  collection: 'users',
  etag: '"1763700000000000"',
  existingDocuments: {
    checked: 3,
    violating: 1,
    complete: true,
    examples: [{ key: 'users:7', errors: [{ pointer: '', detail: "must have required property 'name'", keyword: 'required', schemaPath: '#/required' }] }]
  }
}

const listSchemasSchema = {
  operationId: 'listSchemas',
  tags: ['schemas'],
  summary: 'List the collections that have a schema',
  querystring: noQuery,
  response: {
    200: jsonResponse('The collections, by name', { $ref: 'CollectionList#' },
      { examples: { one: { collections: [{ collection: 'users', etag: '"1763700000000000"' }] } } })
  }
}

const getSchemaSchema = (separator: string) => ({
  operationId: 'getSchema',
  tags: ['schemas'],
  summary: "Read a collection's schema",
  description: 'Answers the schema exactly as registered. `If-None-Match` answers 304 when it matches.',
  params: collectionParams(separator),
  querystring: noQuery,
  headers: requestHeaderSchema('If-None-Match'),
  response: {
    200: {
      description: 'The schema',
      headers: headers('ETag'),
      content: { 'application/schema+json': { schema: collectionSchemaRef, examples: { users: { value: exampleSchema } } } }
    },
    304: emptyResponse('Not modified: If-None-Match matches the current revision', ['ETag']),
    ...problemResponses(404)
  }
})

const putSchemaSchema = (separator: string) => ({
  operationId: 'putSchema',
  tags: ['schemas'],
  summary: "Register or replace a collection's schema",
  description: 'From then on, every write to a document of the collection is validated against the whole document as ' +
    'the write would leave it (422 DOCS_ERR_SCHEMA_VIOLATION otherwise, and nothing is written), on every instance ' +
    'sharing the Redis. A schema that is not valid JSON Schema 2020-12 is 400 DOCS_ERR_INVALID_SCHEMA; one whose ' +
    'compilation takes longer than MAX_VALIDATION_MS is 422 DOCS_ERR_LIMIT_EXCEEDED. The answer reports how many ' +
    'documents already in the collection the schema rejects; they are kept as they are.',
  params: collectionParams(separator),
  querystring: noQuery,
  headers: requestHeaderSchema('If-Match', 'If-None-Match'),
  body: {
    content: {
      'application/schema+json': { schema: collectionSchemaRef },
      'application/json': { schema: collectionSchemaRef }
    }
  },
  response: {
    200: jsonResponse('Replaced', { $ref: 'SchemaRegistration#' }, { headers: ['ETag'], examples: { replaced: registeredExample } }),
    201: jsonResponse('Registered', { $ref: 'SchemaRegistration#' }, { headers: ['ETag', 'Location'], examples: { registered: registeredExample } }),
    ...problemResponses(412, 422)
  }
})

const deleteSchemaSchema = (separator: string) => ({
  operationId: 'deleteSchema',
  tags: ['schemas'],
  summary: "Remove a collection's schema",
  description: 'Writes to the collection are no longer validated. Its documents are kept.',
  params: collectionParams(separator),
  querystring: noQuery,
  headers: requestHeaderSchema('If-Match'),
  response: {
    204: emptyResponse('Removed'),
    ...problemResponses(404, 412)
  }
})

/** The route schemas of `/schemas`, for collection names split from ids by `separator`. */
export function schemaRouteSchemas (separator: string) {
  return {
    list: listSchemasSchema,
    get: getSchemaSchema(separator),
    put: putSchemaSchema(separator),
    delete: deleteSchemaSchema(separator)
  }
}
