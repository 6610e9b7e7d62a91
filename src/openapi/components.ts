import { problemTypePath, problemTypes, type ProblemCode } from '../errors.js'
import { CONDITION_HEADER_PATTERN } from '../http/conditional.js'
import { PROBLEM_MEDIA_TYPE } from '../http/problems.js'

/**
 * Pieces every route description shares: the problem schema and problem responses, generated from the
 * error registry (a code added there appears here with no other change), and the HTTP headers.
 */

const codes = Object.keys(problemTypes) as ProblemCode[]

function codesWithStatus (status: number): ProblemCode[] {
  return codes.filter((code) => problemTypes[code].status === status)
}

/** One place where a request, a schema or a document departs from the schema it must match. */
export const validationErrorSchema = {
  $id: 'ValidationError',
  type: 'object',
  properties: {
    in: {
      type: 'string',
      enum: ['body', 'querystring', 'params', 'headers', 'document'],
      description: 'The part of the request, or `document` for a stored document as a write would leave it'
    },
    pointer: { type: 'string', description: 'JSON Pointer into that part (RFC 6901); "" is the whole of it' },
    detail: { type: 'string' },
    keyword: { type: 'string', description: 'The JSON Schema keyword that fails (schemas of collections only)' },
    schemaPath: { type: 'string', description: 'Where that keyword is in the schema (schemas of collections only)' }
  },
  required: ['in', 'pointer', 'detail']
} as const

/** One thing that keeps the service from serving (readiness). */
export const unreadySchema = {
  $id: 'Unready',
  type: 'object',
  properties: {
    check: { type: 'string', enum: ['redis', 'json-module', 'scripts'], description: 'What was checked' },
    detail: { type: 'string', description: 'Why it fails' }
  },
  required: ['check', 'detail']
} as const

/** A document holding a tag value RediSearch indexes in part, at a tag field's pointer. */
export const unsearchableValueSchema = {
  $id: 'UnsearchableValue',
  type: 'object',
  properties: {
    key: { type: 'string', description: 'The document\'s key' },
    pointer: { type: 'string', description: 'The tag field where it holds U+0000 or U+001F' }
  },
  required: ['key', 'pointer']
} as const

/** An RFC 9457 problem as the service renders it; extension members are kept (additionalProperties). */
export const problemSchema = {
  $id: 'Problem',
  type: 'object',
  description: 'An RFC 9457 problem (application/problem+json). Problem types, by code:\n\n' +
    '| code | status | title | type |\n| --- | --- | --- | --- |\n' +
    codes.map((code) => `| \`${code}\` | ${problemTypes[code].status} | ${problemTypes[code].title} | \`${problemTypePath(code)}\` |`)
      .join('\n'),
  properties: {
    type: { type: 'string', enum: codes.map(problemTypePath), description: 'The problem type, a path relative to the service' },
    title: { type: 'string', description: 'The title of the problem type; it never varies' },
    status: { type: 'integer', enum: [...new Set(codes.map((code) => problemTypes[code].status))] },
    detail: { type: 'string', description: 'What happened, for people' },
    code: { type: 'string', enum: codes, description: 'Stable code of the problem type' },
    errors: {
      type: 'array',
      description: 'For DOCS_ERR_VALIDATION: where the request departs from its schema. For DOCS_ERR_INVALID_SCHEMA: ' +
        'where the schema in the body departs from the JSON Schema 2020-12 meta-schema. For DOCS_ERR_SCHEMA_VIOLATION: ' +
        'where the document, as the write would leave it, departs from its collection schema',
      items: { $ref: 'ValidationError#' }
    },
    collection: {
      type: 'string',
      description: 'For DOCS_ERR_SCHEMA_VIOLATION: the collection whose schema rejects the write. For DOCS_ERR_INVALID_SCHEMA on a ' +
        'write: the collection whose stored schema the service cannot run'
    },
    operation: { type: 'integer', minimum: 0, description: 'Index of the failing operation (JSON Patch, operations)' },
    path: { type: 'string', description: 'For DOCS_ERR_PATCH_FAILED: the path of the failing JSON Patch operation' },
    pointer: { type: 'string', description: 'For operation failures: the location the operation applies to' },
    limit: { type: 'string', description: 'For DOCS_ERR_LIMIT_EXCEEDED and DOCS_ERR_PAYLOAD_TOO_LARGE: the setting whose limit the request exceeds' },
    max: { type: 'integer', description: 'For DOCS_ERR_LIMIT_EXCEEDED and DOCS_ERR_PAYLOAD_TOO_LARGE: the value of that limit' },
    documents: {
      type: 'array',
      description: 'For DOCS_ERR_UNSEARCHABLE_VALUE: documents (at most 10) holding U+0000 or U+001F in a tag field the query compares or sorts on, with that field\'s pointer',
      items: { $ref: 'UnsearchableValue#' }
    },
    unready: {
      type: 'array',
      description: 'For /readyz and /health: what keeps the service from serving',
      items: { $ref: 'Unready#' }
    },
    requestId: {
      type: 'string',
      description: 'The id of the request this problem answers, as in its X-Request-Id header and in the service\'s log lines (reqId)'
    }
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
  additionalProperties: true
} as const

const problemRef = { $ref: 'Problem#' } as const

/** Headers of answers, by their registered names. */
export const responseHeaders = {
  ETag: {
    type: 'string',
    pattern: '^"[0-9]+"$',
    description: 'Strong entity-tag of the document version; changes on every write to the document'
  },
  'Expires-In': { type: 'string', pattern: '^[0-9]+$', description: 'Seconds the document has left, when it has a time to live' },
  Location: { type: 'string', description: 'URL of the value the request created' },
  Link: { type: 'string', description: 'RFC 8288 link to the next page: `</docs?...>; rel="next"`' },
  Allow: { type: 'string', description: 'The methods the resource has' },
  'Preference-Applied': { type: 'string', enum: ['return=minimal', 'count=exact'], description: 'RFC 7240: the body was left out (`return=minimal`), or holds the total count (`count=exact`), as asked' },
  'Retry-After': { type: 'string', pattern: '^[0-9]+$', description: 'Seconds to wait before retrying' },
  RateLimit: { type: 'string', description: 'IETF RateLimit header fields draft: `"default";r=<requests left>;t=<seconds until the window ends>`' },
  'RateLimit-Policy': { type: 'string', description: 'IETF RateLimit header fields draft: `"default";q=<requests>;w=<window in seconds>` (RATE_LIMIT)' },
  'WWW-Authenticate': {
    type: 'string',
    description: 'RFC 6750: `Bearer realm="jsondocs"`, with `error="invalid_token"` when the bearer token sent was refused (none for another scheme), ' +
      'or `error="insufficient_scope"` when they lack the right'
  }
} as const

type HeaderName = keyof typeof responseHeaders

/** The named response headers. */
export function headers (...names: HeaderName[]) {
  return Object.fromEntries(names.map((name) => [name, responseHeaders[name]]))
}

/** Request headers of conditional requests and preferences, as a fastify `headers` schema. */
export const requestHeaders = {
  'If-Match': {
    type: 'string',
    pattern: CONDITION_HEADER_PATTERN,
    description: 'Write only if the document is at one of these versions (`"v"` list), or exists (`*`). 412 otherwise'
  },
  'If-None-Match': {
    type: 'string',
    pattern: CONDITION_HEADER_PATTERN,
    description: 'On reads: 304 when the version matches. On PUT: `*` creates only (412 when the document exists)'
  },
  Prefer: { type: 'string', description: 'RFC 7240: `return=minimal` answers a write without the stored value' }
} as const

export function requestHeaderSchema (...names: Array<keyof typeof requestHeaders>) {
  return { type: 'object', properties: Object.fromEntries(names.map((name) => [name, requestHeaders[name]])) }
}

function exampleProblem (code: ProblemCode) {
  const { status, title } = problemTypes[code]
  return { type: problemTypePath(code), title, status, detail: `An example of ${code}`, code }
}

/** The response of a problem status, with an example of each problem type of that status. */
export function problemResponse (status: number) {
  const matching = codesWithStatus(status)
  if (matching.length === 0) throw new Error(`No problem type has status ${status}`)
  return {
    description: matching.map((code) => problemTypes[code].title).join('; '),
    ...(status === 503 ? { headers: headers('Retry-After') } : {}),
    ...(status === 401 || status === 403 ? { headers: headers('WWW-Authenticate') } : {}),
    ...(status === 429 ? { headers: headers('Retry-After', 'RateLimit', 'RateLimit-Policy') } : {}),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: problemRef,
        examples: Object.fromEntries(matching.map((code) => [code, { summary: problemTypes[code].title, value: exampleProblem(code) }]))
      }
    }
  }
}

/** Problem responses for these statuses. */
export function problemResponses (...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, problemResponse(status)]))
}

/** A JSON response: any schema, its headers, a description and examples. */
export function jsonResponse (description: string, schema: object, options: { headers?: HeaderName[], examples?: Record<string, unknown> } = {}) {
  return {
    description,
    ...(options.headers ? { headers: headers(...options.headers) } : {}),
    content: {
      'application/json': {
        schema,
        ...(options.examples
          ? { examples: Object.fromEntries(Object.entries(options.examples).map(([name, value]) => [name, { value }])) }
          : {})
      }
    }
  }
}

/** A response without a body. */
export function emptyResponse (description: string, names: HeaderName[] = []) {
  return { description, type: 'null', ...(names.length ? { headers: headers(...names) } : {}) }
}
