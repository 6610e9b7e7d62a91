import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

const TICKET_PARAMETER = /([?&]ticket=)[^&#]*/gi

/** A URL with the value of its `ticket` parameters (stream tickets: credentials) censored. */
export function withoutTicket (url: string): string {
  return url.replace(TICKET_PARAMETER, '$1[redacted]')
}

/** The request as log lines see it: its URL without credentials. */
function loggable (request: FastifyRequest): FastifyRequest {
  if (!/[?&]ticket=/i.test(request.url)) return request
  const url = withoutTicket(request.url)
  const raw = new Proxy(request.raw, { get: (target, name) => name === 'url' ? url : Reflect.get(target, name) })
  return new Proxy(request, { get: (target, name) => name === 'url' ? url : name === 'raw' ? raw : Reflect.get(target, name) })
}

/**
 * fastify's request log lines, with stream tickets censored from the URLs they carry: an EventSource
 * can send its credential only in the URL (the headers' credentials are censored by pino's redact option).
 */
export class ServiceLogController extends LogController {
  override incomingRequest (request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    super.incomingRequest(loggable(request), reply, metadata)
  }

  override defaultErrorLog (error: Error, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    super.defaultErrorLog(error, loggable(request), reply, metadata)
  }

  override routeNotFound (request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    super.routeNotFound(loggable(request), reply, metadata)
  }

  override writeHeadError (error: Error, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    super.writeHeadError(error, loggable(request), reply, metadata)
  }
}
