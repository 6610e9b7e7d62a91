import type { IncomingMessage } from 'node:http'

/** Bodies longer than this, or of unknown length (chunked), are large: they take an upload turn. */
export const LARGE_BODY_BYTES = 64 * 1024

/** Whether a request's body is large enough to wait for an upload turn before it is read. */
export function needsUploadTurn (request: IncomingMessage): boolean {
  const length = request.headers['content-length']
  if (length !== undefined) return Number(length) > LARGE_BODY_BYTES
  return request.headers['transfer-encoding'] !== undefined
}

/**
 * Turns for large uploads across the whole service: at most `max` requests with large bodies are read
 * and handled at once, at most `maxWaiting` wait in line (unread, their sockets paused by Node once a
 * little has arrived), in the order they came; beyond that a request is refused.
 */
export class UploadTurns {
  #active = 0
  readonly #waiting: Array<() => void> = []

  constructor (readonly max: number, readonly maxWaiting: number) {}

  get active (): number {
    return this.#active
  }

  get waiting (): number {
    return this.#waiting.length
  }

  /**
   * Runs start now ('started'), or once a turn frees ('waiting'), or never ('refused': the line is
   * full). Each started turn must be given back with release().
   */
  take (start: () => void): 'started' | 'waiting' | 'refused' {
    if (this.#active < this.max) {
      this.#active++
      start()
      return 'started'
    }
    if (this.#waiting.length >= this.maxWaiting) return 'refused'
    this.#waiting.push(start)
    return 'waiting'
  }

  /** Leaves the line without having started. */
  leave (start: () => void): void {
    const index = this.#waiting.indexOf(start)
    if (index >= 0) this.#waiting.splice(index, 1)
  }

  release (): void {
    const next = this.#waiting.shift()
    if (next === undefined) this.#active--
    else next()
  }
}
