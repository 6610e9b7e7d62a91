import type { FastifyRequest } from 'fastify'

const SLASH = 47
const WILDCARD = 42
const QUESTION_MARK = 63
const NUMBER_SIGN = 35

/**
 * The wildcard parameter (`*`) of the route a request matched, as sent: still percent-encoded, or
 * undefined when the route has none. find-my-way gives every parameter percent-decoded, `%2F` included,
 * which would make `a%2Fb` two segments of a pointer; the router matches `/` only as written, so the raw
 * text is what follows as many `/` in the path as the route's URL has before its `*`.
 */
export function rawWildcardOf (request: FastifyRequest): string | undefined {
  return rawWildcard(request.url, request.routeOptions.url ?? '')
}

/** rawWildcard('/api/d%6Fcs/k/a%2Fb/c?x', '/api/docs/:key/*') is 'a%2Fb/c'. */
export function rawWildcard (url: string, routeUrl: string): string | undefined {
  const star = routeUrl.length - 1
  if (routeUrl.charCodeAt(star) !== WILDCARD) return undefined
  let at = -1
  for (let index = 0; index < star; index++) {
    if (routeUrl.charCodeAt(index) !== SLASH) continue
    at = url.indexOf('/', at + 1)
    if (at === -1) throw new Error(`${url} has fewer segments than the route ${routeUrl} it matched`)
  }
  // The path ends where the router ends it: at the query or a fragment.
  let end = at + 1
  while (end < url.length && url.charCodeAt(end) !== QUESTION_MARK && url.charCodeAt(end) !== NUMBER_SIGN) end++
  return url.slice(at + 1, end)
}
