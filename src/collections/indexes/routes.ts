import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { denied } from '../../access/plugin.js'
import { listingReach } from '../../access/scopes.js'
import { BadRequestError, NotFoundError, UriTooLongError } from '../../errors.js'
import { collectionRoute, type CollectionParams } from '../collection-route.js'
import { indexFieldsOf, schemaDisagreement, type IndexDefinition } from './definition.js'
import type { AggregateRequest } from './aggregate.js'
import { aggregateRouteSchema, shortAggregateRouteSchema } from './aggregate-route-schemas.js'
import { shortAggregateOf, type ShortAggregateString } from './short-aggregate.js'
import type { QueryRequest, QuerySource } from './queries.js'
import { indexRouteSchemas, MAX_QUERY_STRING_CHARACTERS } from './route-schemas.js'
import { checkPercentEncoding, queryStringCharacters, shortQueryOf, type ShortQueryString } from './short-query.js'
import type { IndexState } from './storage.js'

/** `/collections/{collection}/index` (declare, read, remove) and `/collections/{collection}/query` (POST, and its short GET form). */
export default async function indexRoutes (app: FastifyInstance) {
  const { storage, queries, searchModule } = app.indexes
  // Every route here needs RediSearch: without it, 501 before the request is read further.
  app.addHook('preValidation', async () => searchModule.require())
  const separator = app.schemas.separator
  const schemas = indexRouteSchemas(separator)
  // Declaring an index is a change to the collection, as its schema is: the `schema` right on `collection + separator`.
  const { onCollection, collectionOf } = collectionRoute(separator)
  const answerState = (reply: FastifyReply, collection: string, state: IndexState) =>
    reply.type('application/json').send(JSON.stringify({ collection, fields: state.definition.fields, state: state.state,
      progress: state.progress, documents: state.documents, failures: state.failures }))

  app.get<{ Params: CollectionParams }>('/collections/:collection/index', { schema: schemas.get, config: onCollection }, async (request, reply) => {
    const collection = collectionOf(request)
    const state = await storage.state(collection)
    if (state === undefined) throw new NotFoundError(`Collection "${collection}" has no index`)
    return answerState(reply, collection, state)
  })

  app.put<{ Params: CollectionParams, Body: IndexDefinition }>('/collections/:collection/index', { schema: schemas.put, config: onCollection },
    async (request, reply) => {
      const collection = collectionOf(request)
      const fields = indexFieldsOf(request.body)
      const schema = await app.schemas.storage.get(collection)
      const disagreement = schema === undefined ? undefined : schemaDisagreement(fields, JSON.parse(schema.text))
      if (disagreement !== undefined) throw new BadRequestError(disagreement)
      await storage.put(collection, fields)
      const state = (await storage.state(collection))!
      if (state.state === 'building') reply.code(202).header('Location', `${app.prefix}/collections/${encodeURIComponent(collection)}/index`)
      return answerState(reply, collection, state)
    })

  app.delete<{ Params: CollectionParams }>('/collections/:collection/index', { schema: schemas.delete, config: onCollection },
    async (request, reply) => {
      const collection = collectionOf(request)
      if (!await storage.remove(collection)) throw new NotFoundError(`Collection "${collection}" has no index`)
      return reply.code(204).send()
    })

  // The read right is checked on each document: only those under the caller's read scopes are found or counted.
  // The query is read (queryOf) once the caller may read some of the collection: one who may not is 403, whatever it says.
  /** Before a short form's query string is validated parameter by parameter: its length, and its percent-encoding. */
  async function checkShortForm (request: FastifyRequest): Promise<void> {
    const search = request.url.indexOf('?')
    if (search < 0) return
    if (queryStringCharacters(request.query as Record<string, unknown>) > MAX_QUERY_STRING_CHARACTERS) {
      throw new UriTooLongError(`The query string's parameters exceed ${MAX_QUERY_STRING_CHARACTERS} characters: ` +
        `POST the query to ${request.url.slice(0, search)} instead`)
    }
    checkPercentEncoding(request.url.slice(search + 1))
  }

  function readableReach (request: FastifyRequest, reply: FastifyReply, collection: string): 'all' | string[] {
    const reach = listingReach(request.access, collection + separator)
    if (reach === 'none') {
      throw denied(reply, request.access, `The credentials' scopes give no "read" right on documents of collection ${JSON.stringify(collection)}`)
    }
    return reach
  }

  async function answerQuery (request: FastifyRequest<{ Params: CollectionParams }>, reply: FastifyReply, queryOf: () => QuerySource) {
    const collection = collectionOf(request)
    const reach = readableReach(request, reply, collection)
    const count = /\bcount\s*=\s*"?exact\b/i.test(String(request.headers.prefer ?? ''))
    const answer = await queries.run(collection, queryOf(), { ...(reach === 'all' ? {} : { readable: reach }), count })
    if (count) reply.header('Preference-Applied', 'count=exact')
    return reply.type('application/json').send(answer.text)
  }

  app.post<{ Params: CollectionParams, Body: AggregateRequest }>('/collections/:collection/aggregate',
    { schema: aggregateRouteSchema(separator), config: { access: { right: 'read' } } }, async (request, reply) => {
      const collection = collectionOf(request)
      const reach = readableReach(request, reply, collection)
      const text = await queries.aggregate(collection, request.body, reach === 'all' ? undefined : reach)
      return reply.type('application/json').send(text)
    })

  app.get<{ Params: CollectionParams, Querystring: ShortAggregateString }>('/collections/:collection/aggregate', {
    schema: shortAggregateRouteSchema(separator),
    config: { access: { right: 'read' } },
    preValidation: checkShortForm
  }, async (request, reply) => {
    const collection = collectionOf(request)
    const reach = readableReach(request, reply, collection)
    const text = await queries.aggregate(collection, shortAggregateOf(request.query), reach === 'all' ? undefined : reach)
    return reply.type('application/json').send(text)
  })

  app.post<{ Params: CollectionParams, Body: QueryRequest }>('/collections/:collection/query', { schema: schemas.query, config: { access: { right: 'read' } } },
    async (request, reply) => answerQuery(request, reply, () => request.body))

  app.get<{ Params: CollectionParams, Querystring: ShortQueryString }>('/collections/:collection/query', {
    schema: schemas.shortQuery,
    config: { access: { right: 'read' } },
    preValidation: checkShortForm
  }, async (request, reply) => answerQuery(request, reply, () => shortQueryOf(request.query)))
}
