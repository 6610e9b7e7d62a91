import type { FastifyInstance, FastifyReply } from 'fastify'
import { BadRequestError } from '../../errors.js'
import { acceptMediaTypes, addressOf, conditionsOf, setRecordHeaders, ttlMsOf } from '../request.js'
import type { VersionRecord } from '../store/index.js'
import { READ_KEY, WRITE_KEY } from './access-rules.js'
import { ttlSchemas } from './ttl-route-schemas.js'

/** `/ttl/{key}`: read, set and remove a document's time to live. */
export default async function ttlRoutes (app: FastifyInstance) {
  const store = app.documents

  app.get('/ttl/:key', { schema: ttlSchemas.get, config: READ_KEY }, async (request, reply) => {
    const record = await store.expiry(wholeDocumentKey(addressOf(request)), undefined, conditionsOf(request))
    return sendTtl(reply, record)
  })

  app.put<{ Body: { ttl: number } }>('/ttl/:key', {
    schema: ttlSchemas.put, config: WRITE_KEY, preValidation: acceptMediaTypes('application/json')
  }, async (request, reply) => {
    const key = wholeDocumentKey(addressOf(request))
    return sendTtl(reply, await store.expiry(key, ttlMsOf(request.body.ttl), conditionsOf(request)))
  })

  app.delete('/ttl/:key', { schema: ttlSchemas.delete, config: WRITE_KEY }, async (request, reply) => {
    const key = wholeDocumentKey(addressOf(request))
    setRecordHeaders(reply, await store.expiry(key, 0, conditionsOf(request)))
    return reply.code(204).send()
  })
}

function wholeDocumentKey (address: { key: string, tokens: string[] }): string {
  if (address.tokens.length > 0) throw new BadRequestError('A time to live applies to a whole document: /ttl/{key}')
  return address.key
}

function sendTtl (reply: FastifyReply, record: VersionRecord) {
  setRecordHeaders(reply, record)
  const ttl = record.expiresAt === undefined ? null : Math.max(0, (record.expiresAt - Date.now()) / 1000)
  return reply.type('application/json').send(JSON.stringify({ ttl }))
}
