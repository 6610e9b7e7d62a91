import createError from '@fastify/error'

/**
 * Every problem type the service answers with: one registry, stable codes. The `type` URI of a problem
 * is derived from its code (DOCS_ERR_NOT_FOUND -> /problems/not-found); the title never varies.
 */
export const problemTypes = {
  DOCS_ERR_BAD_REQUEST: { status: 400, title: 'Malformed request' },
  DOCS_ERR_MALFORMED_HTTP: { status: 400, title: 'Malformed HTTP message' },
  DOCS_ERR_INVALID_JSON: { status: 400, title: 'Request body is not valid JSON' },
  DOCS_ERR_INVALID_JSONPATH: { status: 400, title: 'Invalid JSONPath expression' },
  DOCS_ERR_VALIDATION: { status: 400, title: 'Request does not match its schema' },
  DOCS_ERR_INVALID_SCHEMA: { status: 400, title: 'Not a usable JSON Schema' },
  DOCS_ERR_UNAUTHORIZED: { status: 401, title: 'Credentials missing or invalid' },
  DOCS_ERR_FORBIDDEN: { status: 403, title: 'Not within the credentials\' scopes' },
  DOCS_ERR_NOT_FOUND: { status: 404, title: 'Nothing at this location' },
  DOCS_ERR_ROUTE_NOT_FOUND: { status: 404, title: 'No such route' },
  DOCS_ERR_METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed on this resource' },
  DOCS_ERR_REQUEST_TIMEOUT: { status: 408, title: 'Request not received in time' },
  DOCS_ERR_WRONG_TYPE: { status: 409, title: 'Key does not hold a JSON document' },
  DOCS_ERR_VALUE_TYPE: { status: 409, title: 'Operation does not apply to the value at this location' },
  DOCS_ERR_OPERATION_FAILED: { status: 409, title: 'Operation cannot be applied' },
  DOCS_ERR_PATCH_FAILED: { status: 409, title: 'JSON Patch cannot be applied' },
  DOCS_ERR_WRITE_CONTENDED: { status: 409, title: 'Document changed too often to validate the write' },
  DOCS_ERR_INDEX_BUILDING: { status: 409, title: 'Index not built yet' },
  DOCS_ERR_INDEX_MISSING: { status: 409, title: 'Index missing from Redis' },
  DOCS_ERR_PRECONDITION_FAILED: { status: 412, title: 'Precondition failed' },
  DOCS_ERR_PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  DOCS_ERR_URI_TOO_LONG: { status: 414, title: 'Request target too long' },
  DOCS_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  DOCS_ERR_UNSTORABLE_JSON: { status: 422, title: 'JSON value cannot be stored' },
  DOCS_ERR_UNADDRESSABLE: { status: 422, title: 'Location cannot be addressed in RedisJSON' },
  DOCS_ERR_SCHEMA_VIOLATION: { status: 422, title: 'Document would not match its collection schema' },
  DOCS_ERR_LIMIT_EXCEEDED: { status: 422, title: 'Request exceeds a cost limit' },
  DOCS_ERR_UNSEARCHABLE_VALUE: { status: 422, title: 'Documents hold tag values the index cannot search whole' },
  DOCS_ERR_HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  DOCS_ERR_RATE_LIMITED: { status: 429, title: 'Too many requests' },
  DOCS_ERR_INTERNAL: { status: 500, title: 'Internal server error' },
  DOCS_ERR_NO_SEARCH: { status: 501, title: 'This Redis has no Search module' },
  DOCS_ERR_REDIS_UNAVAILABLE: { status: 503, title: 'Storage unavailable' },
  DOCS_ERR_REPLICATION_TIMEOUT: { status: 503, title: 'Write not confirmed by the replicas' },
  DOCS_ERR_SERVICE_BUSY: { status: 503, title: 'Service busy' },
  DOCS_ERR_NOT_READY: { status: 503, title: 'Service not ready' },
  DOCS_ERR_STREAMS_FULL: { status: 503, title: 'Too many live streams' },
  DOCS_ERR_STREAMS_OFF: { status: 406, title: 'Live streams are off' }
} as const

export type ProblemCode = keyof typeof problemTypes

/** The path of a problem type's URI, relative to the service. */
export function problemTypePath (code: ProblemCode): string {
  return '/problems/' + code.replace(/^DOCS_ERR_/, '').toLowerCase().replaceAll('_', '-')
}

function define (code: ProblemCode, message: string) {
  return createError(code, message, problemTypes[code].status)
}

export const BadRequestError = define('DOCS_ERR_BAD_REQUEST', '%s')
export const InvalidJsonError = define('DOCS_ERR_INVALID_JSON', '%s')
export const InvalidJsonPathError = define('DOCS_ERR_INVALID_JSONPATH', '%s')
export const ValueTypeError = define('DOCS_ERR_VALUE_TYPE', '%s')
export const OperationFailedError = define('DOCS_ERR_OPERATION_FAILED', '%s')
export const PatchFailedError = define('DOCS_ERR_PATCH_FAILED', '%s')
export const UnauthorizedError = define('DOCS_ERR_UNAUTHORIZED', '%s')
export const ForbiddenError = define('DOCS_ERR_FORBIDDEN', '%s')
export const NotFoundError = define('DOCS_ERR_NOT_FOUND', '%s')
export const RouteNotFoundError = define('DOCS_ERR_ROUTE_NOT_FOUND', 'No route for %s %s')
export const MethodNotAllowedError = define('DOCS_ERR_METHOD_NOT_ALLOWED', '%s is not allowed here; allowed: %s')
export const WrongTypeError = define('DOCS_ERR_WRONG_TYPE', 'Key %s holds a Redis value that is not a JSON document')
export const IndexBuildingError = define('DOCS_ERR_INDEX_BUILDING', '%s')
export const IndexMissingError = define('DOCS_ERR_INDEX_MISSING', '%s')
export const PreconditionFailedError = define('DOCS_ERR_PRECONDITION_FAILED', '%s')
export const PayloadTooLargeError = define('DOCS_ERR_PAYLOAD_TOO_LARGE', 'Request body exceeds %d bytes')
export const UriTooLongError = define('DOCS_ERR_URI_TOO_LONG', '%s')
export const UnsupportedMediaTypeError = define('DOCS_ERR_UNSUPPORTED_MEDIA_TYPE', '%s')
export const UnstorableJsonError = define('DOCS_ERR_UNSTORABLE_JSON', '%s')
export const InvalidSchemaError = define('DOCS_ERR_INVALID_SCHEMA', '%s')
export const SchemaViolationError = define('DOCS_ERR_SCHEMA_VIOLATION', '%s')
export const WriteContendedError = define('DOCS_ERR_WRITE_CONTENDED',
  'Document "%s" kept changing while its write was validated; retry the request')
export const UnaddressableError = define('DOCS_ERR_UNADDRESSABLE',
  'Member name %j cannot be reached by this request: RedisJSON paths cannot name a member that starts with a space or line feed, and its writes miss one with a backslash or both kinds of quote (see Addressing in docs/api.md); read or write its parent instead')
export const NoSearchError = define('DOCS_ERR_NO_SEARCH', '%s')
export const UnsearchableValueError = define('DOCS_ERR_UNSEARCHABLE_VALUE', '%s')
export const RedisUnavailableError = define('DOCS_ERR_REDIS_UNAVAILABLE', 'Redis did not answer: %s')
export const ReplicationTimeoutError = define('DOCS_ERR_REPLICATION_TIMEOUT',
  'The write reached Redis, but %d of the %d replicas WRITE_REPLICAS asks for confirmed it within %d ms: its outcome is unknown (it may be lost in a failover); read the document before retrying')
export const ServiceBusyError = define('DOCS_ERR_SERVICE_BUSY', '%s')
export const NotReadyError = define('DOCS_ERR_NOT_READY', '%s')
export const StreamsFullError = define('DOCS_ERR_STREAMS_FULL', '%s')
export const StreamsOffError = define('DOCS_ERR_STREAMS_OFF', '%s')
export const RateLimitedError = define('DOCS_ERR_RATE_LIMITED', '%s')
const LimitExceededError = define('DOCS_ERR_LIMIT_EXCEEDED', '%s')

/** The 422 of a request over one of the cost limits: names the setting (`limit`) and its value (`max`). */
export function limitExceeded (limit: string, max: number, detail: string) {
  return withExtensions(new LimitExceededError(detail), { limit, max })
}

export function isProblemCode (code: unknown): code is ProblemCode {
  return typeof code === 'string' && Object.hasOwn(problemTypes, code)
}

/** Members a problem carries beyond the standard ones (RFC 9457 extension members). */
export interface ProblemExtensions {
  problemExtensions?: Record<string, unknown>
}

/** Attaches extension members to an error, for the problem it becomes. */
export function withExtensions<E extends Error> (error: E, extensions: Record<string, unknown>): E & ProblemExtensions {
  return Object.assign(error, { problemExtensions: extensions })
}
