import type { FastifyInstance } from 'fastify'
import { reaches, reachesCollection } from '../access/scopes.js'
import { NotFoundError } from '../errors.js'
import { etagOf, noneMatchHolds } from '../http/conditional.js'
import { acceptMediaTypes, conditionsOf, jsonBodyOf } from '../documents/request.js'
import { collectionRoute, type CollectionParams } from './collection-route.js'
import { conformanceReport } from './report.js'
import { schemaRouteSchemas } from './schema-route-schemas.js'
import { schemaSourceOf } from './validation-protocol.js'

const SCHEMA_MEDIA_TYPE = 'application/schema+json'


/** `/schemas/{collection}`: register, read, replace, list and remove collection schemas. */
export default async function schemaRoutes (app: FastifyInstance) {
  const { storage, separator, validation } = app.schemas
  const schemas = schemaRouteSchemas(separator)
  const { onCollection, collectionOf } = collectionRoute(separator)

  app.get('/schemas', { schema: schemas.list, config: { access: { right: 'schema' } } }, async (request, reply) => {
    const collections = await storage.list()
    return reply.type('application/json').send(JSON.stringify({
      collections: collections.filter(({ collection }) => reachesCollection(request.access, collection, separator)).map(({ collection, revision }) => ({ collection, etag: etagOf(revision) }))
    }))
  })

  app.get<{ Params: CollectionParams }>('/schemas/:collection', { schema: schemas.get, config: onCollection },
    async (request, reply) => {
      const collection = collectionOf(request)
      const stored = await storage.get(collection)
      if (!stored) throw new NotFoundError(`Collection "${collection}" has no schema`)
      reply.header('ETag', etagOf(stored.revision))
      if (!noneMatchHolds(request.headers['if-none-match'], stored.revision)) return reply.code(304).send()
      return reply.type(SCHEMA_MEDIA_TYPE).send(stored.text)
    })

  app.put<{ Params: CollectionParams }>('/schemas/:collection', {
    schema: schemas.put,
    config: onCollection,
    preValidation: acceptMediaTypes(SCHEMA_MEDIA_TYPE, 'application/json')
  }, async (request, reply) => {
    const collection = collectionOf(request)
    const schema = schemaSourceOf(jsonBodyOf(request).text)
    await validation.compile(schema, 'the schema was not registered')
    const { created, revision } = await storage.put(collection, schema.text, conditionsOf(request))
    const report = await conformanceReport(app.documents, validation, collection + separator, schema)
    // The examples name documents and what they hold: only those the credentials may read.
    const existingDocuments = { ...report, examples: report.examples.filter(({ key }) => reaches(request.access, 'read', key)) }
    reply.header('ETag', etagOf(revision))
    if (created) reply.code(201).header('Location', `${app.prefix}/schemas/${encodeURIComponent(collection)}`)
    return reply.type('application/json').send(JSON.stringify({ collection, etag: etagOf(revision), existingDocuments }))
  })

  app.delete<{ Params: CollectionParams }>('/schemas/:collection', { schema: schemas.delete, config: onCollection },
    async (request, reply) => {
      const collection = collectionOf(request)
      if (!await storage.remove(collection, conditionsOf(request))) {
        throw new NotFoundError(`Collection "${collection}" has no schema`)
      }
      return reply.code(204).send()
    })
}
