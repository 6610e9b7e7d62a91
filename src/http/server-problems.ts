import { STATUS_CODES, type ServerResponse } from 'node:http'
import { problemTypes, type ProblemCode } from '../errors.js'
import { PROBLEM_MEDIA_TYPE, problemText } from './problems.js'
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js'

/** A problem the HTTP server answers itself, below fastify; the connection closes after it. */
export interface ServerProblem {
  code: ProblemCode
  detail: string
}

const CONTENT_TYPE = `${PROBLEM_MEDIA_TYPE}; charset=utf-8`

function headersOf (problem: ServerProblem, body: string, retryAfterSeconds: number): Record<string, string> {
  return {
    'content-type': CONTENT_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    ...(problemTypes[problem.code].status === 503 ? { 'retry-after': String(retryAfterSeconds) } : {}),
    connection: 'close'
  }
}

/**
 * Answers a request fastify never met with a problem, and closes its connection after the answer. The
 * request has an id as fastify would have given it, in the body and in `X-Request-Id`.
 */
export function answerProblem (response: ServerResponse, problem: ServerProblem, retryAfterSeconds: number): void {
  const requestId = requestIdOf(response.req)
  const body = problemText(problem.code, problem.detail, {}, requestId)
  response.shouldKeepAlive = false
  response.writeHead(problemTypes[problem.code].status,
    { ...headersOf(problem, body, retryAfterSeconds), [REQUEST_ID_HEADER]: requestId })
  response.end(body)
}

/** A whole HTTP/1.1 response carrying a problem, for a socket that has no response object to write it. */
export function problemMessage (problem: ServerProblem, retryAfterSeconds: number): string {
  const body = problemText(problem.code, problem.detail)
  const status = problemTypes[problem.code].status
  const headers = { date: new Date().toUTCString(), ...headersOf(problem, body, retryAfterSeconds) }
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines}\r\n${body}`
}

/** What Node reports on a connection's `clientError`: a parse error (HPE_*), a timeout, or a network error. */
export interface ClientError extends Error {
  code?: string
  reason?: string
}

/**
 * The answer to an HTTP message Node's parser refuses, or undefined for a network error (nothing to
 * answer). Timeouts are answered by the server, which knows which one ran out.
 */
export function parserProblem (error: ClientError, maxHeaderBytes: number): ServerProblem | undefined {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { code: 'DOCS_ERR_HEADERS_TOO_LARGE', detail: `The request line and header fields exceed ${maxHeaderBytes} bytes` }
  }
  if (error.code === 'HPE_PAUSED_H2_UPGRADE') {
    return { code: 'DOCS_ERR_MALFORMED_HTTP', detail: 'An HTTP/2 connection preface: this service speaks HTTP/1.1' }
  }
  if (error.code?.startsWith('HPE_') !== true) return undefined
  const reason = error.reason === undefined ? error.code : `${error.reason} (${error.code})`
  return { code: 'DOCS_ERR_MALFORMED_HTTP', detail: `The request is not a valid HTTP/1.1 message: ${reason}` }
}
