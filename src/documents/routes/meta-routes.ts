import type { FastifyInstance } from 'fastify'
import { addressOf, setRecordHeaders } from '../request.js'
import { READ_KEY } from './access-rules.js'
import { metaSchema } from './meta-route-schemas.js'

/** `GET /meta/{key}[/{pointer}]`: what a value is, as RedisJSON sees it. */
export default async function metaRoutes (app: FastifyInstance) {
  const store = app.documents

  for (const form of ['document', 'path'] as const) {
    app.get(form === 'path' ? '/meta/:key/*' : '/meta/:key', { schema: metaSchema(form), config: READ_KEY }, async (request, reply) => {
      const { version, expiresAt, ...description } = await store.describe(addressOf(request, { throughEscapes: false }))
      setRecordHeaders(reply, { version, ...(expiresAt === undefined ? {} : { expiresAt }) })
      return reply.type('application/json').send(JSON.stringify(description))
    })
  }
}
