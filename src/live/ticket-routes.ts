import type { FastifyInstance } from 'fastify'
import { denied } from '../access/plugin.js'
import { budgetIdentity, listingReach, reaches } from '../access/scopes.js'
import { MAX_TICKETS_PER_WINDOW, type Ticket } from '../access/tickets.js'
import { RateLimitedError } from '../errors.js'
import { onEachKey } from '../documents/routes/access-rules.js'
import { acceptMediaTypes } from '../documents/request.js'
import { ticketRouteSchemas as schemas } from './ticket-route-schemas.js'

/**
 * `POST /streams/tickets`: a stream ticket for a document the credentials may read, or for a key prefix they
 * may list (the keys its streams show bounded as the listing bounds them), for an EventSource that cannot send
 * them (see docs/live.md).
 */
export default async function ticketRoutes (app: FastifyInstance) {
  app.post<{ Body: { key: string } | { prefix: string } }>('/streams/tickets', {
    schema: schemas.create, config: onEachKey('read'), preValidation: acceptMediaTypes('application/json')
  }, async (request, reply) => {
    const access = request.access
    let target: Ticket['target']
    if ('key' in request.body) {
      const { key } = request.body
      if (!reaches(access, 'read', key)) throw denied(reply, access, `The credentials' scopes give no "read" right on ${JSON.stringify(key)}`)
      target = { key }
    } else {
      const { prefix } = request.body
      const reach = listingReach(access, prefix)
      if (reach === 'none') throw denied(reply, access, `The credentials' scopes give no "read" right on keys starting with ${JSON.stringify(prefix)}`)
      target = { prefix, reach: reach === 'all' ? [prefix] : reach }
    }
    const lifeline = access.kind === 'scoped' ? access.lifeline ?? {} : {}
    const identity = access.kind === 'scoped' ? access.identity : undefined
    const admission = await app.access.tickets.admit(budgetIdentity(access, request.ip))
    if (!admission.allowed) {
      reply.header('Retry-After', String(admission.resetSeconds))
      throw new RateLimitedError(`More than ${MAX_TICKETS_PER_WINDOW} stream tickets in ${app.access.tickets.ttlMs / 1000} s from these credentials (or this address); retry in ${admission.resetSeconds} s`)
    }
    const created = await app.access.tickets.create({ target, lifeline, ...(identity === undefined ? {} : { identity }) })
    return reply.code(201).header('Cache-Control', 'no-store').type('application/json')
      .send(JSON.stringify({ ticket: created.ticket, expiresAt: new Date(created.expiresAt).toISOString() }))
  })
}
