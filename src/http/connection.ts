import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { closeSoon, ReadingHold } from './sockets.js'

/** Requests parsed on one connection that may wait for their turn before it stops reading the socket. */
export const MAX_WAITING_REQUESTS = 16

/** One request on a connection, from the moment Node has parsed its head. */
export interface Turn {
  readonly request: IncomingMessage
  readonly response: ServerResponse
}

/** What a connection asks of the server that owns it. */
export interface ConnectionOwner {
  /** Handles a request whose turn has come; its response closing ends the turn. */
  start (turn: Turn, connection: Connection): void
  /** The connection is closed or closing, and answers nothing more. */
  ended (connection: Connection): void
}

/**
 * One client connection. Its requests take effect and are answered in the order they came, one at a
 * time (RFC 9112 section 9.3.2), whoever answers them: a request's handling starts once the answer
 * before it has been sent, and nothing after an answer that closes the connection runs. While too many
 * wait, the socket is not read.
 */
export class Connection {
  readonly #waiting: Turn[] = []
  #current: Turn | undefined
  #ended = false
  readonly #reading: ReadingHold

  constructor (readonly socket: Socket, readonly owner: ConnectionOwner) {
    this.#reading = new ReadingHold(socket)
    socket.once('close', () => this.#end())
  }

  /** Requests parsed and waiting for their turn, the one in progress aside. */
  get waiting (): number {
    return this.#waiting.length
  }

  /** A request Node has parsed: it runs once every request before it on this connection has been answered. */
  receive (request: IncomingMessage, response: ServerResponse): void {
    if (this.#ended) return
    const turn: Turn = { request, response }
    if (this.#current === undefined) return this.#start(turn)
    this.#waiting.push(turn)
    if (this.#waiting.length >= MAX_WAITING_REQUESTS) this.#reading.hold()
  }

  #start (turn: Turn): void {
    this.#current = turn
    turn.response.once('close', this.#turnEnded)
    this.owner.start(turn, this)
  }

  readonly #turnEnded = (): void => {
    const ended = this.#current
    this.#current = undefined
    if (this.socket.destroyed || this.socket.writableEnded) return this.#end()
    // Answered before its body arrived (a 415, say): nothing after it can be read until it has, so stop here.
    if (ended !== undefined && !ended.request.complete) {
      this.#end()
      return closeSoon(this.socket)
    }
    if (this.#waiting.length <= MAX_WAITING_REQUESTS / 2) this.#reading.release()
    const next = this.#waiting.shift()
    if (next === undefined) return
    // One waiting request per turn of the event loop: a client piping thousands keeps no one else waiting.
    this.#current = next
    setImmediate(() => { if (!this.#ended) this.#start(next) })
  }

  #end (): void {
    if (this.#ended) return
    this.#ended = true
    this.#waiting.length = 0
    this.owner.ended(this)
  }
}
