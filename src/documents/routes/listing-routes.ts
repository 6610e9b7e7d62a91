import type { FastifyInstance } from 'fastify'
import { denied } from '../../access/plugin.js'
import { listingReach } from '../../access/scopes.js'
import { BadRequestError } from '../../errors.js'
import { wantsEventStream } from '../../live/sse.js'
import type { ScanPosition } from '../store/index.js'
import { onEachKey } from './access-rules.js'
import { listSchema } from './listing-route-schemas.js'

interface ListQuery { prefix: string, limit: number, cursor?: string }

/** `GET /docs?prefix=`: document keys by prefix, a page at a time; with `Accept: text/event-stream`, their live changes. */
export default async function listingRoutes (app: FastifyInstance) {
  const store = app.documents

  app.get<{ Querystring: ListQuery }>('/docs', { schema: listSchema, config: { ...onEachKey('read'), liveStream: true } }, async (request, reply) => {
    const { prefix, limit } = request.query
    // Only keys under a granted read prefix, in a listing as in a live stream; the cursor stays bound to the listing's prefix.
    const reach = listingReach(request.access, prefix)
    if (reach === 'none') throw denied(reply, request.access, `The credentials' scopes give no "read" right on keys starting with ${JSON.stringify(prefix)}`)
    if (wantsEventStream(request)) return app.liveStreams.openPrefix(request, reply, prefix, reach)
    const admits = reach === 'all' ? undefined : (key: string) => reach.some((granted) => key.startsWith(granted))
    const listing = await store.list(prefix, decodeCursor(request.query.cursor, prefix), limit, admits)
    const next = listing.next === undefined ? null : encodeCursor(prefix, listing.next)
    if (next) {
      const query = new URLSearchParams({ prefix, limit: String(limit), cursor: next })
      reply.header('Link', `<${app.prefix}/docs?${query}>; rel="next"`)
    }
    return reply.type('application/json').send(JSON.stringify({ keys: listing.keys, cursor: next }))
  })
}

/**
 * Cursors are opaque to clients and bound to the prefix they were issued for. They carry the whole
 * position (on a cluster, the master too), so any instance can continue a listing.
 */
function encodeCursor (prefix: string, { node, cursor }: ScanPosition): string {
  return Buffer.from(JSON.stringify(node === '' ? [prefix, cursor] : [prefix, cursor, node])).toString('base64url')
}

function decodeCursor (token: string | undefined, prefix: string): ScanPosition | undefined {
  if (token === undefined) return undefined
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString())
  } catch {
    decoded = undefined
  }
  const [issuedFor, cursor, node = ''] = Array.isArray(decoded) ? decoded : []
  if (issuedFor !== prefix || !isScanCursor(cursor) || typeof node !== 'string') {
    throw new BadRequestError('The cursor is not one this listing issued')
  }
  return { node, cursor }
}

/** SCAN cursors are unsigned 64-bit integers; Redis refuses any other number with an error. */
function isScanCursor (cursor: unknown): cursor is string {
  return typeof cursor === 'string' && /^\d{1,20}$/.test(cursor) && BigInt(cursor) < 2n ** 64n
}
