import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { FastifyServerFactory } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    earlyAnswers: EarlyAnswers
  }
}

/** Answers a request from memory and returns true, or returns false and leaves it to fastify. */
export type EarlyAnswer = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * The HTTP server under fastify, with room for one early answer: a function that meets every request
 * on a socket before fastify builds its request and reply, routes and validates it. A plugin installs it
 * once the app can answer; closing the app removes it before fastify stops taking requests. Requests
 * made with `inject` never meet it.
 */
export class EarlyAnswers {
  #answer: EarlyAnswer | undefined
  /** Requests answered early since the start. */
  answered = 0

  install (answer: EarlyAnswer): void {
    this.#answer = answer
  }

  remove (): void {
    this.#answer = undefined
  }

  /** Fastify's own HTTP/1 server, built from the same options fastify applies to it. */
  readonly serverFactory: FastifyServerFactory = (handler, options) => {
    const server = http.createServer(options['http'] ?? {}, (request, response) => {
      if (this.#answer?.(request, response) === true) this.answered++
      else handler(request, response)
    })
    server.keepAliveTimeout = numberOption(options, 'keepAliveTimeout')
    server.requestTimeout = numberOption(options, 'requestTimeout')
    server.setTimeout(numberOption(options, 'connectionTimeout'))
    const maxRequestsPerSocket = numberOption(options, 'maxRequestsPerSocket')
    if (maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket
    return server
  }
}

function numberOption (options: Record<string, unknown>, name: string): number {
  const value = options[name]
  return typeof value === 'number' ? value : 0
}
