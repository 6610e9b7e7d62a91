import { emptyResponse, jsonResponse, problemResponses } from '../../openapi/components.js'
import { collectionParams } from '../schema-route-schemas.js'
import { FIELD_TYPES, MAX_INDEX_FIELDS } from './definition.js'
import { DEFAULT_LIMIT, MAX_FIELDS, MAX_LIMIT } from './queries.js'
import { MAX_SHORT_CONDITIONS } from './short-query.js'

/** Route schemas of `/collections/{collection}/index` and `/query`: each validates and becomes an OpenAPI operation. */

const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const
/** A JSON Pointer (RFC 6901): "/" tokens in which "~" only escapes "0" or "1". */
const POINTER = '(?:/(?:[^/~]|~[01])*)'
const pointer = { type: 'string', maxLength: 1024, pattern: `^${POINTER}*$`, description: 'JSON Pointer (RFC 6901) into the documents' } as const
/** A pointer of a field of the index: at least one token. */
export const fieldPointer = { ...pointer, pattern: `^${POINTER}+$`, description: 'JSON Pointer (RFC 6901) of a field of the index' } as const

const indexField = {
  $id: 'IndexField',
  type: 'object',
  description: 'A searchable pointer: `tag` (exact strings, or arrays of them), `text` (words), `number` (or arrays of ' +
    'numbers), `boolean`; `sortable` (tag and number only) lets queries sort on it',
  properties: {
    pointer: {
      ...pointer,
      minLength: 2,
      // Object members only: no token that is an array position (digits, or "-"), none starting with a space or a line
      // feed, and no NUL (RediSearch reads a field's path as a C string).
      pattern: '^(?:/(?!(?:0|[1-9][0-9]*|-)(?:/|$))(?![ \\n])(?:[^/~\\u0000]|~[01])*)+$',
      description: 'JSON Pointer (RFC 6901) of object members: no token an array position (digits, or `-`) nor starting with a space ' +
        'or a line feed, and no NUL character (U+0000)'
    },
    type: { type: 'string', enum: FIELD_TYPES },
    sortable: { type: 'boolean' }
  },
  required: ['pointer', 'type'],
  // Only tag and number fields can be sortable.
  if: { type: 'object', properties: { type: { type: 'string', enum: ['text', 'boolean'] } } },
  then: { type: 'object', properties: { sortable: { type: 'boolean', const: false } } },
  additionalProperties: false
} as const

const indexDefinition = {
  $id: 'IndexDefinition',
  type: 'object',
  description: 'What is searchable in a collection',
  properties: {
    fields: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_INDEX_FIELDS,
      items: { $ref: 'IndexField#' },
      description: 'Each pointer once (400 when two fields name the same pointer, however it is escaped)'
    }
  },
  required: ['fields'],
  additionalProperties: false
} as const

const indexState = {
  $id: 'IndexState',
  type: 'object',
  description: 'A collection\'s index: its latest definition and how far its building has come. While a changed definition ' +
    'builds, queries use the previous one',
  properties: {
    collection: { type: 'string' },
    fields: { type: 'array', items: { $ref: 'IndexField#' } },
    state: { type: 'string', enum: ['building', 'ready'] },
    progress: { type: 'number', format: 'double', minimum: 0, maximum: 1, description: 'Share of the documents indexed (1 when ready)' },
    documents: { type: 'integer', format: 'int64', minimum: 0, description: 'Documents the index being built (or the ready one) holds' },
    failures: { type: 'integer', format: 'int64', minimum: 0, description: 'Documents RediSearch could not index: a value of another type than its field\'s' }
  },
  required: ['collection', 'fields', 'state', 'progress', 'documents', 'failures'],
  additionalProperties: false
} as const

const querySort = {
  $id: 'QuerySort',
  type: 'object',
  description: 'A sortable field of the index and the direction',
  properties: { pointer: fieldPointer, order: { type: 'string', enum: ['asc', 'desc'] } },
  required: ['pointer'],
  additionalProperties: false
} as const

const queryItem = {
  $id: 'QueryItem',
  type: 'object',
  description: 'A document the query found',
  properties: {
    key: { type: 'string' },
    etag: { type: 'string', pattern: '^"[0-9]+"$' },
    value: { description: 'The document as stored, or an object of the requested pointers\' values (pointers with no value left out)' }
  },
  required: ['key', 'etag', 'value']
} as const

/** A filter's members: pointers, and `$and`, `$or`, `$not`. */
export const filterMemberNames = { type: 'string', pattern: '^(?:/|\\$(?:and|or|not)$)' } as const

const limit = {
  type: 'integer', format: 'int32', minimum: 0, maximum: MAX_LIMIT, default: DEFAULT_LIMIT,
  description: '0 answers no items: with `Prefer: count=exact`, only the count'
} as const
const cursor = {
  type: 'string',
  maxLength: 4096,
  pattern: '^[A-Za-z0-9_-]*$',
  description: 'The `cursor` of the previous page of the same query (base64url, as answered)'
} as const

const queryRequest = {
  $id: 'QueryRequest',
  type: 'object',
  description: 'A query: see docs/queries.md for the filter grammar',
  properties: {
    filter: {
      type: 'object',
      propertyNames: filterMemberNames,
      additionalProperties: true,
      description: 'Members are pointers of the index (a value, or operators `$eq $ne $gt $gte $lt $lte $in $nin $exists $prefix $text`) ' +
        'and `$and`, `$or` (lists of filters), `$not` (a filter); all must hold. A string value holds at most 1024 bytes of UTF-8, and no U+001F'
    },
    sort: {
      type: 'array',
      maxItems: 1,
      items: { $ref: 'QuerySort#' },
      description: 'One sortable field; ties, and the order without a sort, go by key'
    },
    fields: { type: 'array', maxItems: MAX_FIELDS, items: pointer, description: 'Answer these pointers of each document rather than the whole' },
    limit,
    cursor
  },
  additionalProperties: false
} as const

/**
 * Most characters (code points, as `maxLength` counts them) a GET form's parameters hold, names and values
 * decoded: a larger query is POSTed. In ASCII, even percent-encoded whole, it stays within the HTTP
 * parser's bound on a request line.
 */
export const MAX_QUERY_STRING_CHARACTERS = 16 * 1024
/**
 * The longest condition a short form's parameter holds. With every named parameter at its own bound, one
 * condition at its bound, named by any pointer an index field may have, still fits in MAX_QUERY_STRING_CHARACTERS.
 */
const MAX_CONDITION_LENGTH = 4096
/** A pointer in a comma-separated list of a short form: `\\,` a comma in it, `\\\\` a backslash. */
export const LISTED_POINTER = '(?:/(?:[^/~,\\\\]|~[01]|\\\\[,\\\\])*)'
/** A pattern of `most` items, separated by commas. */
export const listPattern = (item: string, most: number) => `^${item}(?:,${item}){0,${most - 1}}$`

/** A short form's conditions: every parameter named by a pointer (the GET forms of queries and aggregations). */
export const shortConditions = {
  title: 'conditions',
  type: 'array',
  maxItems: MAX_SHORT_CONDITIONS,
  items: { type: 'string', maxLength: MAX_CONDITION_LENGTH },
  description: 'Each parameter named by a pointer of the index is a condition on it, and all hold: `/status=open` ' +
    '(equality), or an operator before the value: `eq: ne: gt: gte: lt: lte: in: nin: prefix: exists: text:` ' +
    '(`/total=gte:10`, `/status=in:open,paid`, `/title=text:red shoes`). Values take the field\'s type: a tag or text ' +
    'field the text as it is (at most 1024 bytes of UTF-8 a value, and no U+001F or U+0000), a number field a number, ' +
    'a boolean field `true` or `false`. A pointer may be given several times. See docs/queries.md'
} as const

/**
 * The GET form's query string. Its pointer parameters cannot be named one by one: they are a pattern, which
 * the description renders as one form-exploded object parameter named by the pattern's `title`.
 */
const shortQueryString = {
  type: 'object',
  properties: {
    sort: {
      type: 'string',
      maxLength: 1025,
      pattern: `^-?${POINTER}+$`,
      description: 'A sortable field\'s pointer, `-` before it for a descending order (`sort=-/total`); ties, and the order without a sort, go by key'
    },
    fields: {
      type: 'string',
      maxLength: 4096,
      pattern: listPattern(`${LISTED_POINTER}*`, MAX_FIELDS),
      description: `Answer these pointers (at most ${MAX_FIELDS}) of each document rather than the whole, separated by commas: ` +
        '`fields=/title,/total` (`\\,` is a comma in a pointer, `\\\\` a backslash)'
    },
    limit,
    cursor
  },
  patternProperties: { '^/': shortConditions }
} as const

const queryPage = {
  $id: 'QueryPage',
  type: 'object',
  description: 'A page of the documents matching a query',
  properties: {
    items: { type: 'array', items: { $ref: 'QueryItem#' } },
    cursor: { type: ['string', 'null'], description: 'Pass back as `cursor` with the same query for the next page; null on the last page' },
    count: { type: 'integer', format: 'int64', minimum: 0, description: 'With `Prefer: count=exact`: how many documents match in all' }
  },
  required: ['items', 'cursor']
} as const

/** The named schemas of these routes. */
export const indexSchemaComponents: ReadonlyArray<{ $id: string }> = [indexField, indexDefinition, querySort, queryRequest]
export const indexAnswerSchemas: ReadonlyArray<{ $id: string }> = [indexState, queryItem, queryPage]

const stateExample = {
  collection: 'orders',
  fields: [{ pointer: '/status', type: 'tag' }, { pointer: '/total', type: 'number', sortable: true }],
  state: 'ready',
  progress: 1,
  documents: 1200,
  failures: 0
}

const queryHeaders = { type: 'object', properties: { Prefer: { type: 'string', description: 'RFC 7240: `count=exact` adds `count` to the answer' } } } as const
const pageExample = { items: [{ key: 'orders:17', etag: '"3"', value: { status: 'open', total: 12.5 } }], cursor: null, count: 1 }

/** A collection that can have an index: its name does not start with `{` (a cluster hash tag would pin its keys to one slot). */
function indexableParams (separator: string) {
  const params = collectionParams(separator)
  const { collection } = params.properties
  return {
    ...params,
    properties: {
      collection: {
        ...collection,
        pattern: '^(?!\\{)' + collection.pattern.slice(1),
        description: collection.description + '; not starting with `{`'
      }
    }
  } as const
}

export function indexRouteSchemas (separator: string) {
  const params = collectionParams(separator)
  return {
    get: {
      operationId: 'getIndex',
      tags: ['queries'],
      summary: "Read a collection's index and its state",
      params,
      querystring: noQuery,
      response: { 200: jsonResponse('The index', { $ref: 'IndexState#' }, { examples: { ready: stateExample } }), ...problemResponses(404, 409, 501) }
    },
    put: {
      operationId: 'putIndex',
      tags: ['queries'],
      summary: "Declare a collection's index",
      description: 'Builds the index over the documents already there (202 while it builds, 200 once ready or when the ' +
        'definition is unchanged). A changed definition builds beside the current one, which answers queries until the ' +
        'new one is ready. When the collection has a schema, each field\'s type must agree with it. When Redis refuses ' +
        'to create the index, 409 and nothing is declared; the same definition again rebuilds an index missing from Redis.',
      params: indexableParams(separator),
      querystring: noQuery,
      body: { $ref: 'IndexDefinition#' },
      response: {
        200: jsonResponse('Ready', { $ref: 'IndexState#' }, { examples: { ready: stateExample } }),
        202: jsonResponse('Building', { $ref: 'IndexState#' }, { headers: ['Location'], examples: { building: { ...stateExample, state: 'building', progress: 0.4 } } }),
        ...problemResponses(400, 409, 501)
      }
    },
    delete: {
      operationId: 'deleteIndex',
      tags: ['queries'],
      summary: "Remove a collection's index (never its documents)",
      params,
      querystring: noQuery,
      response: { 204: emptyResponse('Removed'), ...problemResponses(404, 501) }
    },
    query: {
      operationId: 'queryCollection',
      tags: ['queries'],
      summary: 'Find documents of a collection by what they contain',
      description: 'A page of the documents matching the filter, in the sort\'s order then by key, with a keyset cursor. ' +
        '`Prefer: count=exact` adds the number of documents matching in all. Only documents the credentials may read are ' +
        'answered or counted.',
      params,
      querystring: noQuery,
      headers: queryHeaders,
      body: { $ref: 'QueryRequest#' },
      response: {
        200: jsonResponse('A page of documents', { $ref: 'QueryPage#' }, { headers: ['Preference-Applied'], examples: { page: pageExample } }),
        ...problemResponses(400, 404, 409, 422, 501)
      }
    },
    shortQuery: {
      operationId: 'getCollectionQuery',
      tags: ['queries'],
      summary: 'Find documents of a collection by what they contain, in a URL',
      description: 'The short form of `POST /collections/{collection}/query` for filters whose conditions all hold: ' +
        '`?/status=open&/total=gte:10&sort=-/total&fields=/title,/total&limit=20`. It is read into the filter that query ' +
        'would send (`{"/status": "open", "/total": {"$gte": 10}}`) and answered alike: same page, counts, access, and ' +
        'cursors, which continue either form of the same query. `$or` and `$not` take the POST form; so does a URL ' +
        `whose parameters hold more than ${MAX_QUERY_STRING_CHARACTERS} characters, names and values decoded (414).`,
      params,
      querystring: shortQueryString,
      headers: queryHeaders,
      response: {
        200: jsonResponse('A page of documents', { $ref: 'QueryPage#' }, { headers: ['Preference-Applied'], examples: { page: pageExample } }),
        ...problemResponses(400, 404, 409, 414, 422, 501)
      }
    }
  }
}
