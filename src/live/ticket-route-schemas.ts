import { jsonResponse, problemResponses } from '../openapi/components.js'
import { MAX_TICKETS_PER_WINDOW } from '../access/tickets.js'
import { keySchema } from '../documents/body-schemas.js'

const ticketRequest = {
  $id: 'StreamTicketRequest',
  type: 'object',
  description: 'One of `key` and `prefix`',
  properties: {
    key: { ...keySchema, description: 'The document whose live streams the ticket opens' },
    prefix: {
      type: 'string',
      maxLength: 1024,
      description: 'The key prefix whose live stream (`GET /docs?prefix=`) the ticket opens, showing the keys the credentials may read'
    }
  },
  oneOf: [{ required: ['key'] }, { required: ['prefix'] }],
  additionalProperties: false
} as const

const ticket = {
  $id: 'StreamTicket',
  type: 'object',
  description: 'A stream ticket: shown this once, stored only hashed',
  properties: {
    ticket: { type: 'string', description: 'Pass as `?ticket=` on the stream\'s URL' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When it stops opening streams' }
  },
  required: ['ticket', 'expiresAt'],
  additionalProperties: false
} as const

/** Schemas request bodies reference by `$id`. */
export const ticketBodySchemas = [ticketRequest]
/** Schemas answers reference by `$id`. */
export const ticketAnswerSchemas = [ticket]

/** The route schema of POST /streams/tickets: it validates and becomes the OpenAPI operation. */
export const ticketRouteSchemas = {
  create: {
    operationId: 'createStreamTicket',
    tags: ['live'],
    summary: 'A short-lived ticket that opens live streams of one document or key prefix, for an EventSource',
    description: 'An `EventSource` cannot send an Authorization header: pass the ticket as `?ticket=` instead. It opens ' +
      '`GET /docs/{key}[/{pointer}]` with `Accept: text/event-stream` of this key alone (with `key`), or `GET /docs?prefix=` ' +
      'with `Accept: text/event-stream` of this prefix alone (with `prefix`: it shows the keys the credentials could read ' +
      'when it was made, as a listing would), for `STREAM_TICKET_TTL_MS` ' +
      '(reconnections included), and only while the credentials that asked for it hold: a stream it opened ends when ' +
      'their token is revoked or they expire. The service never logs it. One credential (one client address without one) ' +
      `makes at most ${MAX_TICKETS_PER_WINDOW} tickets per \`STREAM_TICKET_TTL_MS\` window, whatever \`RATE_LIMIT\` says: 429 past them.`,
    body: { $ref: 'StreamTicketRequest#' },
    response: {
      201: jsonResponse('The ticket', { $ref: 'StreamTicket#' }),
      ...problemResponses(400)
    }
  }
}
