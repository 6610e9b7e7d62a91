import { emptyResponse, headers, jsonResponse, problemResponses, requestHeaderSchema } from '../openapi/components.js'

/** Route schemas of `/schemas`: each validates the service's own inputs and becomes an OpenAPI operation. */

const etag = { type: 'string', pattern: '^"[0-9]+"$' } as const

const collectionParams = {
  type: 'object',
  properties: {
    collection: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: 'Collection name: the part of a document key before the separator (`users` for `users:42`)'
    }
  },
  required: ['collection']
} as const

const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const

const exampleSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
  required: ['name']
}

/** Any JSON Schema 2020-12: an object or a boolean, checked against the meta-schema when compiled. */
const anyJsonSchema = {
  anyOf: [{ type: 'object', additionalProperties: true }, { type: 'boolean' }],
  description: 'A JSON Schema (draft 2020-12)'
}
const jsonSchemaBody = { ...anyJsonSchema, examples: [exampleSchema] }

const violation = {
  type: 'object',
  properties: {
    pointer: { type: 'string', description: 'JSON Pointer into the document' },
    detail: { type: 'string' },
    keyword: { type: 'string' },
    schemaPath: { type: 'string' }
  },
  required: ['pointer', 'detail', 'keyword', 'schemaPath']
} as const

const registered = {
  type: 'object',
  properties: {
    collection: { type: 'string' },
    etag,
    existingDocuments: {
      type: 'object',
      description: 'How the documents already in the collection fare against the schema. They are kept as they are.',
      properties: {
        checked: { type: 'integer', minimum: 0 },
        violating: { type: 'integer', minimum: 0, description: 'Documents the schema rejects' },
        complete: { type: 'boolean', description: 'False when the collection holds more documents than one report checks' },
        examples: {
          type: 'array',
          maxItems: 10,
          items: {
            type: 'object',
            properties: { key: { type: 'string' }, errors: { type: 'array', items: violation } },
            required: ['key', 'errors']
          }
        }
      },
      required: ['checked', 'violating', 'complete', 'examples']
    }
  },
  required: ['collection', 'etag', 'existingDocuments'],
  additionalProperties: false
} as const

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

export const listSchemasSchema = {
  operationId: 'listSchemas',
  tags: ['schemas'],
  summary: 'List the collections that have a schema',
  querystring: noQuery,
  response: {
    200: jsonResponse('The collections, by name', {
      type: 'object',
      properties: {
        collections: {
          type: 'array',
          items: {
            type: 'object',
            properties: { collection: { type: 'string' }, etag },
            required: ['collection', 'etag'],
            additionalProperties: false
          }
        }
      },
      required: ['collections'],
      additionalProperties: false
    }, { examples: { one: { collections: [{ collection: 'users', etag: '"1763700000000000"' }] } } })
  }
}

export const getSchemaSchema = {
  operationId: 'getSchema',
  tags: ['schemas'],
  summary: "Read a collection's schema",
  description: 'Answers the schema exactly as registered. `If-None-Match` answers 304 when it matches.',
  params: collectionParams,
  querystring: noQuery,
  headers: requestHeaderSchema('If-None-Match'),
  response: {
    200: {
      description: 'The schema',
      headers: headers('ETag'),
      content: { 'application/schema+json': { schema: anyJsonSchema, examples: { users: { value: exampleSchema } } } }
    },
    304: emptyResponse('Not modified: If-None-Match matches the current revision', ['ETag']),
    ...problemResponses(404)
  }
}

export const putSchemaSchema = {
  operationId: 'putSchema',
  tags: ['schemas'],
  summary: "Register or replace a collection's schema",
  description: 'From then on, every write to a document of the collection is validated against the whole document as ' +
    'the write would leave it (422 DOCS_ERR_SCHEMA_VIOLATION otherwise, and nothing is written), on every instance ' +
    'sharing the Redis. A schema that is not valid JSON Schema 2020-12 is 400 DOCS_ERR_INVALID_SCHEMA. The answer ' +
    'reports how many documents already in the collection the schema rejects; they are kept as they are.',
  params: collectionParams,
  querystring: noQuery,
  headers: requestHeaderSchema('If-Match', 'If-None-Match'),
  body: {
    content: {
      'application/schema+json': { schema: jsonSchemaBody },
      'application/json': { schema: jsonSchemaBody }
    }
  },
  response: {
    200: jsonResponse('Replaced', registered, { headers: ['ETag'], examples: { replaced: registeredExample } }),
    201: jsonResponse('Registered', registered, { headers: ['ETag', 'Location'], examples: { registered: registeredExample } }),
    ...problemResponses(412)
  }
}

export const deleteSchemaSchema = {
  operationId: 'deleteSchema',
  tags: ['schemas'],
  summary: "Remove a collection's schema",
  description: 'Writes to the collection are no longer validated. Its documents are kept.',
  params: collectionParams,
  querystring: noQuery,
  headers: requestHeaderSchema('If-Match'),
  response: {
    204: emptyResponse('Removed'),
    ...problemResponses(404, 412)
  }
}
