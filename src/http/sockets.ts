import type { Socket } from 'node:net'

/** How long a socket closed after its last words still drains what the client sends, so no reset loses them. */
const LINGER_MS = 2000

const noop = () => {}

/** The part of a socket's libuv handle that starts and stops reading (Node's own, untyped). */
interface ReadingHandle {
  reading: boolean
  readStart (): number
  readStop (): number
}

/**
 * Keeps a socket from being read until released. `socket.pause()` does not hold a socket Node's HTTP
 * parser consumes: Node reads on whenever it completes a message. So reading is stopped at the handle,
 * and Node's own attempts to start it again are ignored while held; on release reading resumes if Node
 * still wants it (`reading`), which also keeps Node's own backpressure on answers intact.
 */
export class ReadingHold {
  #held = false
  #readStart: (() => number) | undefined

  constructor (readonly socket: Socket) {}

  hold (): void {
    const handle = this.#handle()
    if (this.#held || handle === undefined) return
    this.#held = true
    if (this.#readStart === undefined) {
      const readStart = handle.readStart
      this.#readStart = () => readStart.call(handle)
      handle.readStart = () => this.#held ? 0 : readStart.call(handle)
    }
    handle.readStop()
  }

  release (): void {
    if (!this.#held) return
    this.#held = false
    if (this.#handle()?.reading === true) this.#readStart?.()
  }

  #handle (): ReadingHandle | undefined {
    return (this.socket as unknown as { _handle?: ReadingHandle | null })._handle ?? undefined
  }
}

/**
 * Ends a socket after its last words, then drains what the client still sends for a while before it
 * closes it, so that a reset does not lose the answer.
 */
export function closeSoon (socket: Socket, lastWords?: string): void {
  if (socket.destroyed) return
  socket.on('error', noop)
  if (lastWords === undefined) socket.end()
  else socket.end(lastWords)
  socket.resume()
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}
