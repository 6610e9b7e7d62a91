import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { UnauthorizedError } from '../errors.js'

function digestOf (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** The credentials of an `Authorization: Bearer <token>` header (the scheme in any case), if it has that form. */
export function bearerTokenOf (authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 7 || authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined
  const token = authorization.slice(7).trim()
  return token === '' ? undefined : token
}

/**
 * Whether a request carries this token as its bearer token. Both sides are hashed first, so the
 * comparison takes the same time whatever the candidate's length and content.
 */
export function bearerCheck (token: string): (request: FastifyRequest) => boolean {
  const expected = digestOf(token)
  return (request) => {
    const candidate = bearerTokenOf(request.headers.authorization)
    return candidate !== undefined && timingSafeEqual(digestOf(candidate), expected)
  }
}

/**
 * An onRequest hook that lets through only requests bearing the admin token: others are 401 with
 * `WWW-Authenticate: Bearer`, before anything else runs. The token is never logged nor echoed.
 */
export function adminOnly (token: string) {
  const holds = bearerCheck(token)
  return function requireAdmin (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    if (holds(request)) return done()
    // RFC 6750: a token that was sent and does not hold is invalid_token; none sent gets the challenge alone.
    const sent = bearerTokenOf(request.headers.authorization) !== undefined
    reply.header('WWW-Authenticate', sent ? 'Bearer realm="jsondocs", error="invalid_token"' : 'Bearer realm="jsondocs"')
    done(new UnauthorizedError('This resource needs the admin token: Authorization: Bearer <AUTH_ADMIN_TOKEN>'))
  }
}
