import { jsonResponse, problemResponses } from '../../openapi/components.js'
import { listQuerySchema } from '../body-schemas.js'

/** The route schema of the listing: it validates and becomes an OpenAPI operation. */

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
    'carries a cursor and a `Link: <...>; rel="next"` header; a page holds about `limit` keys.\n\n' +
    'With `Accept: text/event-stream` (and `since`, `ticket`), the answer is instead a live stream of the changes to every ' +
    'document under the prefix whose key the credentials may read (the keys a listing would show), as server-sent events ' +
    'each with an `id:` and naming its document: per write, `patch` ({"key", "patch": RFC 6902 operations on the whole ' +
    'document, "etag"}), `put` ({"key","value","etag"}) for a whole document written, `delete` ({"key"}), `changed` ' +
    '({"key","etag"}) for a write whose changes, longer than EVENTS_MAX_ENTRY_BYTES, are no longer kept (GET the document); `reset` ' +
    '({"reason","reload":true}) when events since Last-Event-ID are no longer kept: reload the documents, the stream goes ' +
    'on from now; `end` ({"reason"}) when the credentials are revoked or expire, or the service shuts down. Lone `id:` ' +
    'lines are heartbeats carrying the position. With EVENTS_FEED_MAXLEN=0, 406.',
  querystring: listQuerySchema,
  response: {
    200: jsonResponse('A page of keys (with `Accept: text/event-stream`, a live stream instead: see the description)',
      { $ref: 'DocumentPage#' }, { headers: ['Link'], examples: { page: { keys: ['user:1', 'user:2'], cursor: null } } }),
    ...problemResponses(400, 406)
  }
}

/** The named answer schemas of this route, registered once for serializers and the description. */
export const listingAnswerSchemas: ReadonlyArray<{ $id: string }> = [documentPage]
