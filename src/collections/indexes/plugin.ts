import fp from 'fastify-plugin'
import { redisCall } from '../../redis/deadline.js'
import { createAggregations } from './aggregate.js'
import { createQueries, type Queries } from './queries.js'
import { createQueryRunner } from './query.js'
import { createIndexRepair } from './repair.js'
import { createSearchModuleCheck } from './search-module.js'
import { createSearcher } from './search.js'
import { createIndexStorage, type IndexStorage } from './storage.js'

export interface IndexesPluginOptions {
  keyPrefix: string
  collectionSeparator: string
  timeoutMs: number
  /** RediSearch's TIMEOUT for each command of a query. */
  queryTimeoutMs: number
  /** On a Redis Cluster, most matches of a query one master answers. */
  maxClusterMatches: number
  /** Most documents an aggregation reads. */
  maxAggregateMatches: number
}

declare module 'fastify' {
  interface FastifyInstance {
    indexes: { storage: IndexStorage, queries: Queries, searchModule: ReturnType<typeof createSearchModuleCheck> }
  }
}

/** Collection indexes (RediSearch on JSON) and the queries they answer. */
export default fp<IndexesPluginOptions>(async function indexesPlugin (app, options) {
  const storage = createIndexStorage(app.redis, app.redisWrites, options)
  const queryOptions = { keyPrefix: options.keyPrefix, timeoutMs: options.queryTimeoutMs, redisTimeoutMs: options.timeoutMs,
    maxClusterMatches: options.maxClusterMatches
  }
  const runner = createQueryRunner(app.redis, queryOptions, app.documents)
  const aggregations = createAggregations(createSearcher(app.redis.isCluster, queryOptions), app.documents,
    () => redisCall(app.redis.masters(), options.timeoutMs), { maxMatches: options.maxAggregateMatches })
  const repair = createIndexRepair(storage, app.log)
  app.addHook('onClose', () => repair.settled())
  app.decorate('indexes', {
    storage,
    queries: createQueries(storage, runner, app.documents, options.keyPrefix, aggregations, repair),
    searchModule: createSearchModuleCheck(app.redis, options.timeoutMs)
  })
}, { name: 'indexes', dependencies: ['redis', 'schemas', 'documents'], fastify: '5.x' })
