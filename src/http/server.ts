import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { ProblemCode } from '../errors.js'
import { Connection, type ConnectionOwner, type Turn } from './connection.js'
import { screenRequest } from './request-screen.js'
import { answerProblem, parserProblem, type ClientError, type ServerProblem } from './server-problems.js'
import { closeSoon } from './sockets.js'
import { needsUploadTurn, UploadTurns } from './upload-turns.js'

/** How the server treats its clients' connections (environment variables in src/config.ts). */
export interface HttpServerSettings {
  /** Open client connections; past it the longest idle one closes, or the newcomer is refused. */
  maxConnections: number
  /** Time to receive a request's header section, from its first byte or from the connection's opening. */
  headersTimeoutMs: number
  /** Time to receive a whole request, headers and body; also the longest an answer may sit unread. */
  requestTimeoutMs: number
  /** Time an idle keep-alive connection is kept between requests. */
  idleTimeoutMs: number
  /** Requests with large bodies read and handled at once. */
  maxUploads: number
  /** Requests with large bodies that may wait for their turn, unread. */
  maxWaitingUploads: number
}

/**
 * The longest request line and header section: room for the longest pointer a query string may carry
 * (4096 characters, up to 12 bytes each encoded).
 */
export const MAX_HEADER_BYTES = 64 * 1024

/** What the server counts, for tests and operators. */
export interface ConnectionCounts {
  readonly open: number
  readonly idle: number
  /** The most requests seen waiting for their turn on one connection. */
  readonly mostWaiting: number
  readonly uploads: { active: number, waiting: number }
  /** The problems the server answered itself, below fastify, by code: one per request or failed connection. */
  readonly problems: ReadonlyMap<ProblemCode, number>
}

/** Node checks its header and request timeouts this often: a fraction of the shorter one, at most a second. */
function checkingInterval ({ headersTimeoutMs, requestTimeoutMs }: HttpServerSettings): number {
  return Math.max(25, Math.min(1000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4)))
}

function busy (detail: string): ServerProblem {
  return { code: 'DOCS_ERR_SERVICE_BUSY', detail }
}

const noop = () => {}

/**
 * The Node HTTP server under fastify, and what it does before fastify meets a request: it keeps each
 * connection's requests in order (connection.ts), bounds connections, timeouts and large uploads,
 * answers what Node's parser refuses, and checks what HTTP/1.1 asks of every request
 * (request-screen.ts). Every answer it gives itself is a problem, and closes the connection.
 */
export class HttpServer implements ConnectionOwner, ConnectionCounts {
  readonly #connections = new Map<Socket, Connection>()
  /** Idle spells begun so far: orders connections by how long they have been idle. */
  #idleSpells = 0
  readonly #uploads: UploadTurns
  #listener: RequestListener = noop
  #sweeping: NodeJS.Timeout | undefined
  #closing = false
  mostWaiting = 0
  readonly problems = new Map<ProblemCode, number>()

  constructor (readonly settings: HttpServerSettings, readonly retryAfterSeconds: number) {
    this.#uploads = new UploadTurns(settings.maxUploads, settings.maxWaitingUploads)
  }

  get open (): number {
    return this.#connections.size
  }

  get idle (): number {
    let idle = 0
    for (const connection of this.#connections.values()) if (connection.idleSince !== undefined) idle++
    return idle
  }

  get uploads () {
    return { active: this.#uploads.active, waiting: this.#uploads.waiting }
  }

  /** Creates the Node server, which hands each request to the listener in its turn (fastify's serverFactory). */
  create (listener: RequestListener): http.Server {
    this.#listener = listener
    const { settings } = this
    const server = http.createServer({
      maxHeaderSize: MAX_HEADER_BYTES,
      // screenRequest answers a missing Host itself, as a problem.
      requireHostHeader: false,
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.idleTimeoutMs,
      connectionsCheckingInterval: checkingInterval(settings)
    })
    // Past the limit connections are still taken, to close an idle one or refuse them with an answer; past
    // twice the limit Node closes them at once.
    server.maxConnections = 2 * settings.maxConnections
    server.on('connection', this.#admit)
    server.on('request', this.#receive)
    server.on('checkContinue', this.#receiveContinuing)
    // An expectation other than 100-continue is ignored, as RFC 9110 section 10.1.1 allows.
    server.on('checkExpectation', this.#receive)
    server.on('connect', this.#receiveConnect)
    clearInterval(this.#sweeping)
    this.#sweeping = setInterval(this.#sweep, checkingInterval(settings)).unref()
    return server
  }

  /** Answers what Node's parser refuses, and its timeouts (fastify's clientErrorHandler). */
  readonly clientErrorHandler = (error: ClientError, socket: Socket): void => {
    const connection = this.#connections.get(socket)
    // A connection closing after its last words keeps draining (sockets.ts): its parser's errors are moot.
    if (connection === undefined) return void (socket.writableEnded || socket.destroy())
    const problem = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? this.#timeoutProblem(connection) : parserProblem(error, MAX_HEADER_BYTES)
    if (problem === undefined) return connection.destroy()
    this.#count(problem)
    connection.fail(problem)
  }

  start (turn: Turn, connection: Connection): void {
    const { request, response } = turn
    const problem = connection.refused
      ? busy(`The service has its MAX_CONNECTIONS (${this.settings.maxConnections}) connections open, none of them idle`)
      : screenRequest(request)
    if (problem !== undefined) return this.#answer(response, problem)
    // Node drops what follows a request offering an upgrade in the same read: the connection ends with it.
    if (request.headers.upgrade !== undefined) response.shouldKeepAlive = false
    if (needsUploadTurn(request)) this.#dispatchInTurn(turn)
    else this.#dispatch(turn)
  }

  idled (connection: Connection): void {
    if (this.#closing) connection.destroy()
    else connection.idleSince = ++this.#idleSpells
  }

  /** The app is closing: idle connections close now, the others once their last answer is sent. */
  close (): void {
    this.#closing = true
    clearInterval(this.#sweeping)
    for (const connection of [...this.#connections.values()]) if (connection.idleSince !== undefined) connection.destroy()
  }

  ended (connection: Connection): void {
    this.#connections.delete(connection.socket)
  }

  #dispatch ({ request, response, continues }: Turn): void {
    if (continues) response.writeContinue()
    this.#listener(request, response)
  }

  /** Dispatches a request with a large body once it has an upload turn, which its answer gives back. */
  #dispatchInTurn (turn: Turn): void {
    let holding = false
    const begin = () => {
      holding = true
      turn.leaveLine = undefined
      this.#dispatch(turn)
    }
    const outcome = this.#uploads.take(begin)
    if (outcome === 'refused') {
      return this.#answer(turn.response, busy(`${this.#uploads.max} large request bodies are being read and ` +
        `${this.#uploads.maxWaiting} wait for their turn (MAX_UPLOADS, MAX_WAITING_UPLOADS)`))
    }
    if (outcome === 'waiting') turn.leaveLine = () => this.#uploads.leave(begin)
    turn.response.once('close', () => {
      if (holding) this.#uploads.release()
      else this.#uploads.leave(begin)
    })
  }

  readonly #admit = (socket: Socket): void => {
    const connection = new Connection(socket, this)
    if (this.#connections.size >= this.settings.maxConnections) {
      const longestIdle = this.#longestIdle()
      if (longestIdle === undefined) connection.refused = true
      else longestIdle.destroy()
    }
    this.#connections.set(socket, connection)
    connection.idleSince = ++this.#idleSpells
  }

  /** Found when the limit is reached, rather than kept in order at every request. */
  #longestIdle (): Connection | undefined {
    let longest: Connection | undefined
    for (const connection of this.#connections.values()) {
      if (connection.idleSince !== undefined && (longest === undefined || connection.idleSince < longest.idleSince!)) longest = connection
    }
    return longest
  }

  readonly #receive = (request: IncomingMessage, response: ServerResponse): void => {
    this.#receiveOn(request.socket, request, response, false)
  }

  readonly #receiveContinuing = (request: IncomingMessage, response: ServerResponse): void => {
    this.#receiveOn(request.socket, request, response, true)
  }

  /** CONNECT takes the socket away from Node's parser: answered in its turn like any request, then closed. */
  readonly #receiveConnect = (request: IncomingMessage, socket: Socket): void => {
    socket.on('error', noop)
    if (!this.#connections.has(socket)) return void socket.destroy()
    const response = new http.ServerResponse(request)
    response.shouldKeepAlive = false
    response.once('finish', () => closeSoon(socket))
    this.#receiveOn(socket, request, response, false)
  }

  /**
   * Closes the connections whose answer has not moved for `requestTimeoutMs`: a client that stops
   * reading. Checked as often as Node checks its own timeouts, rather than with a timer per request.
   */
  readonly #sweep = (): void => {
    const now = Date.now()
    for (const connection of [...this.#connections.values()]) {
      if (connection.answerStalledFor(now) >= this.settings.requestTimeoutMs) connection.destroy()
    }
  }

  #answer (response: ServerResponse, problem: ServerProblem): void {
    this.#count(problem)
    answerProblem(response, problem, this.retryAfterSeconds)
  }

  #count ({ code }: ServerProblem): void {
    this.problems.set(code, (this.problems.get(code) ?? 0) + 1)
  }

  #timeoutProblem (connection: Connection): ServerProblem {
    const { headersTimeoutMs, requestTimeoutMs, maxUploads } = this.settings
    if (connection.awaitingUpload) {
      return busy(`No upload turn freed within REQUEST_TIMEOUT_MS (${requestTimeoutMs} ms): ` +
        `${maxUploads} large request bodies are being read (MAX_UPLOADS)`)
    }
    const detail = connection.receiving
      ? `The request did not arrive whole within REQUEST_TIMEOUT_MS (${requestTimeoutMs} ms)`
      : `No complete request header section arrived within HEADERS_TIMEOUT_MS (${headersTimeoutMs} ms)`
    return { code: 'DOCS_ERR_REQUEST_TIMEOUT', detail }
  }

  #receiveOn (socket: Socket, request: IncomingMessage, response: ServerResponse, continues: boolean): void {
    // None when the connection has ended: what it still parses is not answered.
    const connection = this.#connections.get(socket)
    if (connection === undefined) return
    connection.receive(request, response, continues)
    if (connection.waiting > this.mostWaiting) this.mostWaiting = connection.waiting
  }
}
