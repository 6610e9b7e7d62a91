import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import { problemMessage, parserProblem, answerProblem, type ClientError } from '../http/server-problems.js'
import type { HttpServerSettings } from '../http/server.js'
import type { Scrape } from './routes.js'

export interface MetricsListenerOptions {
  host: string
  port: number
  /** The service's timeouts, applied to scrapers too. */
  http: HttpServerSettings
  retryAfterSeconds: number
  log: FastifyBaseLogger
}

/** A scraper needs one connection; a few more leave room for a second one and a person with curl. */
const MAX_CONNECTIONS = 16
const MAX_HEADER_BYTES = 16 * 1024
const PATH = '/metrics'

function pathOf (url: string | undefined): string {
  const end = url?.search(/[?#]/) ?? -1
  return end === -1 ? url ?? '' : url!.slice(0, end)
}

/**
 * A second HTTP listener that serves `GET /metrics` alone, without a token, for a scraper on a private
 * network (METRICS_PORT). Everything else is a problem: 404 for another path, 405 for another method.
 * It keeps the service's timeouts and holds at most MAX_CONNECTIONS connections. Resolves once it listens.
 */
export async function listenForScrapes (scrape: () => Promise<Scrape>, options: MetricsListenerOptions): Promise<http.Server> {
  const { retryAfterSeconds } = options
  const server = http.createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: options.http.headersTimeoutMs,
    requestTimeout: options.http.requestTimeoutMs,
    keepAliveTimeout: options.http.idleTimeoutMs
  }, (request: IncomingMessage, response: ServerResponse) => {
    if (pathOf(request.url) !== PATH) {
      return answerProblem(response, { code: 'DOCS_ERR_ROUTE_NOT_FOUND', detail: `This port serves ${PATH} alone` }, retryAfterSeconds)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD')
      return answerProblem(response, { code: 'DOCS_ERR_METHOD_NOT_ALLOWED', detail: `${request.method} is not allowed here; allowed: GET, HEAD` },
        retryAfterSeconds)
    }
    scrape().then(({ contentType, text }) => {
      response.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' })
      response.end(request.method === 'HEAD' ? undefined : text)
    }, (error: unknown) => {
      options.log.error({ err: error }, 'the metrics could not be rendered')
      answerProblem(response, { code: 'DOCS_ERR_INTERNAL', detail: 'The metrics could not be rendered' }, retryAfterSeconds)
    })
  })
  server.maxConnections = MAX_CONNECTIONS
  server.on('clientError', (error: ClientError, socket: Socket) => {
    const problem = parserProblem(error, MAX_HEADER_BYTES) ??
      (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? { code: 'DOCS_ERR_REQUEST_TIMEOUT' as const, detail: 'The request did not arrive in time' } : undefined)
    if (problem === undefined || !socket.writable) return void socket.destroy()
    socket.end(problemMessage(problem, retryAfterSeconds))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return server
}

/** Stops the listener: idle connections close now, busy ones after their answer. */
export async function closeListener (server: http.Server): Promise<void> {
  server.closeIdleConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}
