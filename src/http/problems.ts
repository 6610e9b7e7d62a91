import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { REQUEST_ID_HEADER } from './request-id.js'
import {
  isProblemCode, problemTypePath, problemTypes, RouteNotFoundError, type ProblemCode, type ProblemExtensions
} from '../errors.js'

export const PROBLEM_MEDIA_TYPE = 'application/problem+json'

/** Fastify's own errors, as the problem types they are. */
const frameworkCodes: Record<string, ProblemCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'DOCS_ERR_PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'DOCS_ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'DOCS_ERR_BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'DOCS_ERR_INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'DOCS_ERR_INVALID_JSON',
  FST_ERR_BAD_URL: 'DOCS_ERR_BAD_REQUEST',
  FST_ERR_VALIDATION: 'DOCS_ERR_VALIDATION'
}

export interface ProblemOptions {
  retryAfterSeconds: number
}

interface ValidationIssue { instancePath: string, message?: string, params?: { propertyName?: string } }

/** The problem type of any error the service may meet. */
export function problemCodeOf (error: FastifyError): ProblemCode {
  if (isProblemCode(error.code)) return error.code
  // A URL segment or header that misses its schema is malformed (as the pointer and header checks say);
  // bodies and query strings have their own problem type, with the places listed.
  if (error.validation) return error.validationContext === 'params' || error.validationContext === 'headers'
    ? 'DOCS_ERR_BAD_REQUEST'
    : 'DOCS_ERR_VALIDATION'
  const mapped = frameworkCodes[error.code]
  if (mapped) return mapped
  if (error.statusCode === 413) return 'DOCS_ERR_PAYLOAD_TOO_LARGE'
  if (error.statusCode === 415) return 'DOCS_ERR_UNSUPPORTED_MEDIA_TYPE'
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return 'DOCS_ERR_BAD_REQUEST'
  return 'DOCS_ERR_INTERNAL'
}

declare module 'fastify' {
  interface FastifyReply {
    /** The problem type this reply carries, once it carries one. */
    problemCode: ProblemCode | undefined
  }
}

/** The JSON text of an RFC 9457 problem; `requestId` (an extension member) names the request it answers. */
export function problemText (code: ProblemCode, detail: string, extensions: Record<string, unknown> = {},
  requestId?: string): string {
  const { status, title } = problemTypes[code]
  return JSON.stringify({ type: problemTypePath(code), title, status, detail, code, ...extensions, ...(requestId === undefined ? {} : { requestId }) })
}

/** Renders an RFC 9457 problem, with the request's id in the body and in `X-Request-Id`. */
export function sendProblem (reply: FastifyReply, code: ProblemCode, detail: string,
  extensions: Record<string, unknown> = {}): FastifyReply {
  const requestId = reply.request.id
  reply.problemCode = code
  return reply.code(problemTypes[code].status).type(PROBLEM_MEDIA_TYPE).header(REQUEST_ID_HEADER, requestId)
    .send(problemText(code, detail, extensions, requestId))
}

function validationIssues (error: FastifyError) {
  return (error.validation as ValidationIssue[] | undefined)?.map((issue) => ({
    in: error.validationContext,
    pointer: issue.instancePath,
    // A member's name that misses `propertyNames` is named: the pointer is its object's.
    detail: (issue.params?.propertyName === undefined ? '' : `member ${JSON.stringify(issue.params.propertyName)}: `) + (issue.message ?? 'is invalid')
  }))
}

/** The one error handler and the not-found handler: every error leaves as application/problem+json. */
export default fp<ProblemOptions>(async function problemsPlugin (app, options) {
  app.decorateReply('problemCode', undefined)
  app.setErrorHandler(function renderProblem (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const code = problemCodeOf(error)
    const { status } = problemTypes[code]
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed')
    }
    if (status === 503) reply.header('Retry-After', String(options.retryAfterSeconds))
    const detail = code === 'DOCS_ERR_INTERNAL' ? 'The request could not be completed' : error.message
    const issues = code === 'DOCS_ERR_VALIDATION' ? validationIssues(error) : undefined
    const extensions = (error as FastifyError & ProblemExtensions).problemExtensions
    return sendProblem(reply, code, detail, { ...extensions, ...(issues ? { errors: issues } : {}) })
  })

  app.setNotFoundHandler(function routeNotFound (request) {
    throw new RouteNotFoundError(request.method, request.url.split('?')[0])
  })
}, { name: 'problems', fastify: '5.x' })
