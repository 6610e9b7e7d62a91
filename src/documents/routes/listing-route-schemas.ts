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
    'carries a cursor and a `Link: <...>; rel="next"` header; a page holds about `limit` keys.',
  querystring: listQuerySchema,
  response: {
    200: jsonResponse('A page of keys', { $ref: 'DocumentPage#' },
      { headers: ['Link'], examples: { page: { keys: ['user:1', 'user:2'], cursor: null } } }),
    ...problemResponses(400, 406)
  }
}

/** The named answer schemas of this route, registered once for serializers and the description. */
export const listingAnswerSchemas: ReadonlyArray<{ $id: string }> = [documentPage]
