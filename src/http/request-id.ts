import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

export const REQUEST_ID_HEADER = 'x-request-id'

/** The longest request id taken from a client. */
export const MAX_REQUEST_ID_LENGTH = 128

/**
 * What a request id a client sends may hold: letters, digits and the punctuation of UUIDs, W3C trace
 * ids, base64 and ULIDs. No space, quote, backslash or control character, so an id copied into a log
 * line, a header or a problem can neither break it nor forge another.
 */
const WELL_FORMED = /^[A-Za-z0-9._:+/=@-]+$/

/**
 * The id of a request: the client's `X-Request-Id` when it is well formed (one header, at most
 * MAX_REQUEST_ID_LENGTH characters of the safe set), else a new UUID. Fastify's genReqId: pino binds it
 * to every log line of the request as `reqId`.
 */
export function requestIdOf (request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER]
  // Node joins repeated headers with ", ", which the safe set refuses; the length is checked before the pattern.
  if (typeof given === 'string' && given.length <= MAX_REQUEST_ID_LENGTH && WELL_FORMED.test(given)) return given
  return randomUUID()
}

function echoRequestId (request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header(REQUEST_ID_HEADER, request.id)
  done()
}

/** Every answer fastify sends carries its request's id, whatever the route and whoever answers first. */
export default fp(async function requestIdPlugin (app) {
  app.addHook('onRequest', echoRequestId)
}, { name: 'request-id', fastify: '5.x' })
