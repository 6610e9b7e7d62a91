import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { answerProblem, problemMessage, type ServerProblem } from './server-problems.js'
import { closeSoon, ReadingHold } from './sockets.js'

/** Requests parsed on one connection that may wait for their turn before it stops reading the socket. */
export const MAX_WAITING_REQUESTS = 16

/** One request on a connection, from the moment Node has parsed its head. */
export interface Turn {
  readonly request: IncomingMessage
  readonly response: ServerResponse
  /** It sent `Expect: 100-continue`: the 100 goes out when its handling starts. */
  readonly continues: boolean
  /** Set while the request waits for an upload turn: gives its place in that line up. */
  leaveLine?: () => void
}

/** What a connection asks of the server that owns it. */
export interface ConnectionOwner {
  readonly retryAfterSeconds: number
  /** Handles a request whose turn has come; its response closing ends the turn. */
  start (turn: Turn, connection: Connection): void
  /** The connection has no request in progress any more. */
  idled (connection: Connection): void
  /** The connection is closed or closing, and answers nothing more. */
  ended (connection: Connection): void
}

/**
 * One client connection. Its requests take effect and are answered in the order they came, one at a
 * time (RFC 9112 section 9.3.2), whoever answers them: a request's handling starts once the answer
 * before it has been sent, and nothing after an answer that closes the connection runs. While too many
 * wait, the socket is not read. A failure of the connection itself (a malformed message, a timeout) is
 * answered in its place in that order, and closes it.
 */
export class Connection {
  readonly #waiting: Turn[] = []
  #current: Turn | undefined
  #failure: ServerProblem | undefined
  #ended = false
  readonly #reading: ReadingHold
  /** Over the connection limit: its first request is refused. */
  refused = false
  /** While no request is in progress: when that began, in the owner's count of idle spells. */
  idleSince: number | undefined
  /** Bytes of answers that had left the socket's buffer, and when that last changed (answerStalledFor). */
  #answerMark = -1
  #answerMovedAt = 0

  constructor (readonly socket: Socket, readonly owner: ConnectionOwner) {
    this.#reading = new ReadingHold(socket)
    socket.once('close', () => this.#end())
  }

  /** Requests parsed and waiting for their turn, the one in progress aside. */
  get waiting (): number {
    return this.#waiting.length
  }

  /** Whether the request in progress is waiting in line for an upload turn. */
  get awaitingUpload (): boolean {
    return this.#current?.leaveLine !== undefined
  }

  /**
   * How long the answer in progress has been sitting without a byte of it moving, as a sweep sees it
   * (0 when no answer is being sent): a client that stops reading leaves it all in the socket's buffer.
   */
  answerStalledFor (now: number): number {
    const response = this.#current?.response
    if (response === undefined || !response.headersSent || response.writableFinished) {
      this.#answerMark = -1
      return 0
    }
    const mark = this.socket.bytesWritten - this.socket.writableLength
    if (mark !== this.#answerMark) {
      this.#answerMark = mark
      this.#answerMovedAt = now
    }
    return now - this.#answerMovedAt
  }

  /** Whether the last request parsed on this connection is still arriving (its body is incomplete). */
  get receiving (): boolean {
    const last = this.#waiting.at(-1) ?? this.#current
    return last !== undefined && !last.request.complete
  }

  /** A request Node has parsed: it runs once every request before it on this connection has been answered. */
  receive (request: IncomingMessage, response: ServerResponse, continues = false): void {
    if (this.#ended || this.#failure !== undefined) return
    const turn: Turn = { request, response, continues }
    if (this.#current === undefined) {
      this.idleSince = undefined
      return this.#start(turn)
    }
    this.#waiting.push(turn)
    if (this.#waiting.length >= MAX_WAITING_REQUESTS) this.#reading.hold()
  }

  /**
   * The connection failed: its next message is malformed, or did not arrive in time. The requests
   * parsed whole before it are still answered in order, then the problem, and the connection closes.
   */
  fail (problem: ServerProblem): void {
    if (this.#ended || this.#failure !== undefined) return
    this.#failure = problem
    this.#reading.hold()
    const current = this.#current
    if (current === undefined) return this.#closeWith(problem)
    if (current.leaveLine !== undefined) {
      current.leaveLine()
      current.leaveLine = undefined
      return answerProblem(current.response, problem, this.owner.retryAfterSeconds)
    }
    if (current.request.complete) return
    // Its own body is what failed: the problem answers it, unless its answer has begun.
    if (current.response.headersSent) this.destroy()
    else this.#closeWith(problem)
  }

  /** Closes the connection at once, answering nothing more. */
  destroy (): void {
    this.#end()
    this.socket.destroy()
  }

  #start (turn: Turn): void {
    this.#begin(turn)
    this.owner.start(turn, this)
  }

  /** Answers a request cut short by the connection's failure with that failure. */
  #refuse (turn: Turn, problem: ServerProblem): void {
    this.#begin(turn)
    answerProblem(turn.response, problem, this.owner.retryAfterSeconds)
  }

  #begin (turn: Turn): void {
    this.#current = turn
    // Node gives a response it created the socket when the one before finishes; others get it here.
    if (turn.response.socket === null) turn.response.assignSocket(this.socket)
    // A response closes once: `on` spares the wrapper `once` would make for every request.
    turn.response.on('close', this.#turnEnded)
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
    if (this.#failure === undefined && this.#waiting.length <= MAX_WAITING_REQUESTS / 2) this.#reading.release()
    const next = this.#waiting.shift()
    if (next === undefined) {
      if (this.#failure === undefined) this.owner.idled(this)
      else this.#closeWith(this.#failure)
    } else if (this.#failure !== undefined && !next.request.complete) {
      this.#refuse(next, this.#failure)
    } else {
      // One waiting request per turn of the event loop: a client piping thousands keeps no one else waiting.
      this.#current = next
      setImmediate(() => { if (!this.#ended) this.#start(next) })
    }
  }

  /** Sends a problem as the connection's last words. */
  #closeWith (problem: ServerProblem): void {
    this.#end()
    this.#reading.release()
    closeSoon(this.socket, problemMessage(problem, this.owner.retryAfterSeconds))
  }

  #end (): void {
    if (this.#ended) return
    this.#ended = true
    this.#waiting.length = 0
    this.owner.ended(this)
  }
}
