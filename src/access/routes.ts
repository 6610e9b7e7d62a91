import type { FastifyInstance } from 'fastify'
import { NotFoundError } from '../errors.js'
import { acceptMediaTypes } from '../documents/request.js'
import { ADMIN_ONLY } from './plugin.js'
import { tokenRouteSchemas as schemas } from './route-schemas.js'
import type { Scope } from './scopes.js'

interface TokenRequest { scopes: Scope[], ttl?: number, label?: string }

/** `/tokens`: the admin creates, lists and revokes bearer tokens. */
export default async function tokenRoutes (app: FastifyInstance) {
  const { tokens } = app.access
  const config = { access: ADMIN_ONLY }

  app.post<{ Body: TokenRequest }>('/tokens', {
    schema: schemas.create, config, preValidation: acceptMediaTypes('application/json')
  }, async (request, reply) => {
    const { scopes, ttl, label } = request.body
    const created = await tokens.create(scopes.map(({ prefix, rights }) => ({ prefix, rights: [...new Set(rights)] })), ttl, label)
    return reply.code(201).header('Cache-Control', 'no-store').type('application/json').send(JSON.stringify(created))
  })

  app.get('/tokens', { schema: schemas.list, config }, async (_request, reply) => {
    return reply.type('application/json').send(JSON.stringify({ tokens: await tokens.list() }))
  })

  app.delete<{ Params: { id: string } }>('/tokens/:id', { schema: schemas.revoke, config }, async (request, reply) => {
    if (!await tokens.revoke(request.params.id)) throw new NotFoundError(`No token has the id "${request.params.id}"`)
    return reply.code(204).send()
  })
}
