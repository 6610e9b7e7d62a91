import {
  emptyResponse, headers, jsonResponse, problemResponses, requestHeaderSchema
} from '../../openapi/components.js'
import {
  bodyRefs, jsonPointerSchema, keyParamSchema, liveStreamQuery, pathPointerSchema, readQuerySchema, writeQuerySchema
} from '../body-schemas.js'

/**
 * The route schemas of the document resource. Each method is served in two URL forms, `/docs/{key}`
 * (the pointer, if any, in `?pointer=`) and `/docs/{key}/{pointer}` (the pointer in the path); one
 * schema per method and form validates the request and becomes its OpenAPI operation.
 */

export type DocumentForm = 'document' | 'path'

const anyJson = { description: 'Any JSON value, as stored' }

const keyParam = keyParamSchema

const pathPointerParam = {
  ...pathPointerSchema,
  description: 'The JSON Pointer without its first "/": one or more segments separated by "/", each percent-decoded, then ' +
    'unescaped as RFC 6901 says ("~1" is "/", "~0" is "~"). An empty last segment is the member named "". ' +
    'Clients that percent-encode "/" inside a parameter reach one member this way; use `?pointer=` for any location.'
} as const

const queryPointer = {
  ...jsonPointerSchema,
  description: 'RFC 6901 JSON Pointer to a location inside the document ("" or absent: the document; "/" the member ""). ' +
    'Not with a pointer in the path'
} as const

function params (form: DocumentForm) {
  // fastify names the wildcard of /docs/:key/* "*"; the description calls it pointer (see the openapi transform).
  const properties = form === 'document' ? { key: keyParam } : { key: keyParam, '*': pathPointerParam }
  return { type: 'object', properties }
}

function query (form: DocumentForm, base: { properties: object }) {
  const properties = form === 'document' ? { ...base.properties, pointer: queryPointer } : base.properties
  return { type: 'object', properties, additionalProperties: false }
}

const openQuerySchema = { type: 'object', properties: {} } as const

function names (form: DocumentForm, verb: string, noun = 'Document') {
  return verb + noun + (form === 'path' ? 'AtPath' : '')
}

const where = (form: DocumentForm) => form === 'document'
  ? 'the document, or the location `?pointer=` names inside it'
  : 'the location the path pointer names inside the document'

const recordHeaders = ['ETag', 'Expires-In'] as const

/** A read's answer, with the live stream a client asking for text/event-stream gets instead (see docs/live.md). */
function withEventStream<R extends { content: object }> (response: R) {
  return {
    ...response,
    content: {
      ...response.content,
      'text/event-stream': {
        schema: {
          type: 'string',
          description: 'Server-sent events, each with an `id:`: first `put` ({"value","etag"}) or `delete` ({}), then per write ' +
            'that changes the location\'s value `patch` ({"patch": RFC 6902 operations relative to the location, "etag"}), `put` or `delete`; ' +
            '`reset` when events since Last-Event-ID (or the changes of a write longer than EVENTS_MAX_ENTRY_BYTES) are no longer kept (a fresh `put` or `delete` follows); `end` ({"reason"}) ' +
            'when the credentials are revoked or expire, or the service shuts down. Comments are heartbeats.'
        }
      }
    }
  }
}

const examples = {
  user: { name: 'Ann', tags: ['a'] },
  merge: { name: null, age: 30 }
}

function read (form: DocumentForm) {
  return {
    operationId: names(form, 'get'),
    tags: ['documents'],
    summary: form === 'document' ? 'Read a document, a location in it, or a JSONPath query' : 'Read the value at a path',
    description: `Answers ${where(form)} as stored. ` +
      (form === 'document' ? 'With `jsonpath`, every match of a read-only JSONPath query over the whole document, as a JSON array. ' : '') +
      '`If-None-Match` answers 304 when it matches the current version.',
    params: params(form),
    // The path form keeps unknown parameters, so that a jsonpath there meets its 400 rather than vanishing.
    querystring: form === 'document' ? query(form, readQuerySchema) : { type: 'object', properties: liveStreamQuery },
    headers: requestHeaderSchema('If-None-Match'),
    response: {
      200: withEventStream(jsonResponse('The value; with `Accept: text/event-stream`, a live stream of its changes', anyJson,
        { headers: [...recordHeaders], examples: { document: examples.user } })),
      304: emptyResponse('Not modified: If-None-Match matches the current version', [...recordHeaders]),
      ...problemResponses(400, 404, 406, 409, 422)
    }
  }
}

function writeResponses (created: string) {
  return {
    200: jsonResponse('Stored: the value now at the location (no body with `Prefer: return=minimal`)', anyJson,
      { headers: [...recordHeaders, 'Preference-Applied'], examples: { document: examples.user } }),
    201: jsonResponse(created, anyJson, { headers: [...recordHeaders, 'Location', 'Preference-Applied'] }),
    ...problemResponses(400, 404, 409, 412, 422)
  }
}

function put (form: DocumentForm) {
  return {
    operationId: names(form, 'put'),
    tags: ['documents'],
    summary: form === 'document' ? 'Create or replace a document (or the value at `?pointer=`)' : 'Replace or add the value at a path',
    description: `Stores the body at ${where(form)}. At the root it creates (201) or replaces (200) the document; inside it ` +
      'replaces a member or element (200) or adds a member to an existing object (201). A missing document or parent is 404.',
    params: params(form),
    querystring: query(form, writeQuerySchema),
    headers: requestHeaderSchema('If-Match', 'If-None-Match', 'Prefer'),
    body: { content: { 'application/json': { schema: { ...anyJson, examples: [examples.user] } } } },
    response: writeResponses('Created: the new document or member')
  }
}

function patch (form: DocumentForm) {
  return {
    operationId: names(form, 'patch'),
    tags: ['documents'],
    summary: 'Merge patch (RFC 7396) or JSON Patch (RFC 6902)',
    description: `Edits ${where(form)}. \`application/merge-patch+json\` (or \`application/json\`) merges objects ` +
      'recursively, null removing a member; `application/json-patch+json` applies a JSON Patch with paths relative to ' +
      'the location, all operations or none (409 with `operation` and `path` when one fails).',
    params: params(form),
    querystring: query(form, writeQuerySchema),
    headers: requestHeaderSchema('If-Match', 'Prefer'),
    body: {
      content: {
        'application/merge-patch+json': { schema: { ...anyJson, examples: [examples.merge] } },
        'application/json': { schema: { ...anyJson, examples: [examples.merge] } },
        'application/json-patch+json': { schema: bodyRefs.jsonPatch }
      }
    },
    response: writeResponses('Created: the merge patch added a member to an existing object')
  }
}

/**
 * One object with either member rather than a union of two: a client generated from a union of two
 * objects cannot tell them apart when the member that differs may be null (openapi-generator's Python
 * client takes `{"results":[...]}` for a `result` of null).
 */
const operationAnswerSchema = {
  $id: 'OperationAnswer',
  type: 'object',
  description: '`result` for one operation, `results` (in order) for a list: exactly one of them',
  properties: {
    result: { description: 'The result of the one operation: any JSON value' },
    results: { type: 'array', items: anyJson, description: 'The results of a list of operations, in order' }
  },
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false
} as const

/** The named answer schemas of the document resource, registered once for serializers and the description. */
export const documentAnswerSchemas: ReadonlyArray<{ $id: string }> = [operationAnswerSchema]

function post (form: DocumentForm) {
  return {
    operationId: names(form, 'operateOn'),
    tags: ['operations'],
    summary: 'Apply one operation, or a list of them atomically',
    description: `Applies RedisJSON operations (incr, mult, append, push, insert, pop, trim, indexOf, toggle, clear) at ${where(form)}.`,
    params: params(form),
    querystring: query(form, writeQuerySchema),
    headers: requestHeaderSchema('If-Match'),
    body: { content: { 'application/json': { schema: bodyRefs.operations } } },
    response: {
      200: jsonResponse('The results', { $ref: 'OperationAnswer#' }, { headers: [...recordHeaders], examples: { one: { result: 31 } } }),
      ...problemResponses(400, 404, 409, 412, 422)
    }
  }
}

function remove (form: DocumentForm) {
  return {
    operationId: names(form, 'delete'),
    tags: ['documents'],
    summary: form === 'document' ? 'Delete a document (or the value at `?pointer=`)' : 'Delete the value at a path',
    description: `Removes ${where(form)}; deleting the root removes the document.`,
    params: params(form),
    querystring: form === 'document' ? query(form, openQuerySchema) : openQuerySchema,
    headers: requestHeaderSchema('If-Match'),
    response: {
      204: emptyResponse('Deleted', [...recordHeaders]),
      ...problemResponses(400, 404, 409, 412, 422)
    }
  }
}

function options (form: DocumentForm) {
  return {
    operationId: names(form, 'options'),
    tags: ['documents'],
    summary: 'The methods of the resource',
    params: params(form),
    response: { 204: { description: 'The methods, in Allow', type: 'null', headers: headers('Allow') } }
  }
}

export const documentRouteSchemas = { read, put, patch, post, remove, options }
