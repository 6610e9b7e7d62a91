import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ProblemCode } from '../errors.js'
import type { Series, SeriesHistogram } from './histogram.js'

/** The route label of requests no route matched (404). */
export const UNMATCHED_ROUTE = 'unmatched'

/** Methods labelled by name; the others Node parses (PROPFIND, LOCK...) share `other`, so a client cannot multiply series. */
const NAMED_METHODS = new Set(['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS'])

/** Problems fastify answered, by code. */
export type ProblemTally = Map<ProblemCode, number>

/**
 * The onResponse hook that observes each answer fastify sends: its time from routing to the last byte
 * handed to the socket (fastify's reply.elapsedTime), by route pattern (never the URL), method and
 * status; and its problem code, if any. Series are kept in nested maps keyed by values fastify already
 * holds (the route's pattern, the method, the status), so an answer allocates nothing.
 */
export function requestObserver (durations: SeriesHistogram, problems: ProblemTally) {
  const byRoute = new Map<string, Map<string, Map<number, Series>>>()

  function seriesOf (route: string, method: string, status: number): Series {
    let byMethod = byRoute.get(route)
    if (byMethod === undefined) byRoute.set(route, byMethod = new Map())
    let byStatus = byMethod.get(method)
    if (byStatus === undefined) byMethod.set(method, byStatus = new Map())
    let series = byStatus.get(status)
    if (series === undefined) byStatus.set(status, series = durations.series(route, method, String(status)))
    return series
  }

  return function observeRequest (request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const route = request.is404 ? UNMATCHED_ROUTE : request.routeOptions.url ?? UNMATCHED_ROUTE
    const method = NAMED_METHODS.has(request.method) ? request.method : 'other'
    seriesOf(route, method, reply.statusCode).observe(reply.elapsedTime / 1000)
    const code = reply.problemCode
    if (code !== undefined) problems.set(code, (problems.get(code) ?? 0) + 1)
    done()
  }
}
