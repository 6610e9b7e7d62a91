import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Connection, type ConnectionOwner, type Turn } from './connection.js'

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
 * connection's requests in order (connection.ts).
 */
export class HttpServer implements ConnectionOwner, ConnectionCounts {
  readonly #connections = new Map<Socket, Connection>()
  #listener: RequestListener = noop
  mostWaiting = 0

  get open (): number {
    return this.#connections.size
  }

  /** Creates the Node server, which hands each request to the listener in its turn (fastify's serverFactory). */
  create (listener: RequestListener): http.Server {
    this.#listener = listener
    const server = http.createServer({
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS
    })
    server.on('connection', this.#admit)
    server.on('request', this.#receive)
    return server
  }

  start ({ request, response }: Turn): void {
    this.#listener(request, response)
  }

  ended (connection: Connection): void {
    this.#connections.delete(connection.socket)
  }

  readonly #admit = (socket: Socket): void => {
    this.#connections.set(socket, new Connection(socket, this))
  }

  readonly #receive = (request: IncomingMessage, response: ServerResponse): void => {
    // None when the connection has ended: what it still parses is not answered.
    const connection = this.#connections.get(request.socket)
    if (connection === undefined) return
    connection.receive(request, response)
    if (connection.waiting > this.mostWaiting) this.mostWaiting = connection.waiting
  }
}
