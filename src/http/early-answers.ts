import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'

declare module 'fastify' {
  interface FastifyInstance {
    earlyAnswers: EarlyAnswers
  }
}

/**
 * Answers a request and returns true, or returns false and leaves it to fastify; either at once or, when
 * the answer needs a round trip, through a promise. A promise that rejects leaves the request to fastify
 * too, with its error kept for the route (failureOf), which can answer it without trying again.
 */
export type EarlyAnswer = (request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>

/**
 * Room for one early answer: a function that meets every request on a socket before fastify builds its
 * request and reply, routes and validates it. A plugin installs it once the app can answer; closing the
 * app removes it before fastify stops taking requests. Requests made with `inject` never meet it. Whatever
 * the early answer leaves, even after trying, fastify handles from the start, so the early answer only
 * ever sends what the route would have sent.
 */
export class EarlyAnswers {
  #answer: EarlyAnswer | undefined
  readonly #failures = new WeakMap<IncomingMessage, Error>()
  /** Requests answered early since the start. */
  answered = 0

  install (answer: EarlyAnswer): void {
    this.#answer = answer
  }

  remove (): void {
    this.#answer = undefined
  }

  /** Why the early answer to this request failed, if it tried and failed. */
  failureOf (request: IncomingMessage): Error | undefined {
    return this.#failures.get(request)
  }

  /** The request listener the HTTP server calls: the early answer first, then fastify's handler for what it leaves. */
  before (handler: RequestListener): RequestListener {
    return (request, response) => {
      const answer = this.#answer?.(request, response) ?? false
      if (answer === true) this.answered++
      else if (answer === false) handler(request, response)
      else {
        answer.then(
          (answered) => { if (answered) this.answered++; else handler(request, response) },
          (error: unknown) => {
            this.#failures.set(request, error instanceof Error ? error : new Error(String(error)))
            handler(request, response)
          }
        )
      }
    }
  }
}
