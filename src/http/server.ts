import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Connection, type ConnectionOwner, type Turn } from './connection.js'
import { screenRequest } from './request-screen.js'
import { answerProblem, parserProblem, type ClientError, type ServerProblem } from './server-problems.js'
import { closeSoon } from './sockets.js'

/** The longest request line and header section: room for the longest pointer a query string may carry (4096 characters, up to 12 bytes each encoded). */
export const MAX_HEADER_BYTES = 64 * 1024

/** A whole request may take this long (slow uploads included) before Node ends it. */
const REQUEST_TIMEOUT_MS = 30_000
/** Keep-alive connections are kept this long between requests (fastify's default). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000

/** What the server counts, for tests and operators. */
export interface ConnectionCounts {
  readonly open: number
  /** The most requests seen waiting for their turn on one connection. */
  readonly mostWaiting: number
}

const noop = () => {}

/**
 * The Node HTTP server under fastify, and what it does before fastify meets a request: it keeps each
 * connection's requests in order (connection.ts), answers what Node's parser refuses, and checks what
 * HTTP/1.1 asks of every request (request-screen.ts). Every answer it gives itself is a problem, and
 * closes the connection.
 */
export class HttpServer implements ConnectionOwner, ConnectionCounts {
  readonly #connections = new Map<Socket, Connection>()
  #listener: RequestListener = noop
  mostWaiting = 0

  constructor (readonly retryAfterSeconds: number) {}

  get open (): number {
    return this.#connections.size
  }

  /** Creates the Node server, which hands each request to the listener in its turn (fastify's serverFactory). */
  create (listener: RequestListener): http.Server {
    this.#listener = listener
    const server = http.createServer({
      maxHeaderSize: MAX_HEADER_BYTES,
      // screenRequest answers a missing Host itself, as a problem.
      requireHostHeader: false,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS
    })
    server.on('connection', this.#admit)
    server.on('request', this.#receive)
    server.on('checkContinue', this.#receiveContinuing)
    // An expectation other than 100-continue is ignored, as RFC 9110 section 10.1.1 allows.
    server.on('checkExpectation', this.#receive)
    server.on('connect', this.#receiveConnect)
    return server
  }

  /** Answers what Node's parser refuses, and its timeouts (fastify's clientErrorHandler). */
  readonly clientErrorHandler = (error: ClientError, socket: Socket): void => {
    const connection = this.#connections.get(socket)
    if (connection === undefined || socket.destroyed) return void socket.destroy()
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return connection.fail(this.#timeoutProblem(connection))
    const problem = parserProblem(error, MAX_HEADER_BYTES)
    if (problem === undefined) connection.destroy()
    else connection.fail(problem)
  }

  start (turn: Turn): void {
    const { request, response } = turn
    const problem = screenRequest(request)
    if (problem !== undefined) return answerProblem(response, problem, this.retryAfterSeconds)
    // Node drops what follows a request offering an upgrade in the same read: the connection ends with it.
    if (request.headers.upgrade !== undefined) response.shouldKeepAlive = false
    if (turn.continues) response.writeContinue()
    this.#listener(request, response)
  }

  ended (connection: Connection): void {
    this.#connections.delete(connection.socket)
  }

  readonly #admit = (socket: Socket): void => {
    this.#connections.set(socket, new Connection(socket, this))
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

  #timeoutProblem (connection: Connection): ServerProblem {
    return connection.receiving
      ? { code: 'DOCS_ERR_REQUEST_TIMEOUT', detail: `The request did not arrive whole within ${REQUEST_TIMEOUT_MS} ms` }
      : { code: 'DOCS_ERR_REQUEST_TIMEOUT', detail: 'No complete request header section arrived in time' }
  }

  #receiveOn (socket: Socket, request: IncomingMessage, response: ServerResponse, continues: boolean): void {
    // None when the connection has ended: what it still parses is not answered.
    const connection = this.#connections.get(socket)
    if (connection === undefined) return
    connection.receive(request, response, continues)
    if (connection.waiting > this.mostWaiting) this.mostWaiting = connection.waiting
  }
}
