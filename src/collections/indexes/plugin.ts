import fp from 'fastify-plugin'
import { createQueries, type Queries } from './queries.js'
import { createQueryRunner } from './query.js'
import { createSearchModuleCheck } from './search-module.js'
import { createIndexStorage, type IndexStorage } from './storage.js'

export interface IndexesPluginOptions {
  keyPrefix: string
  collectionSeparator: string
  timeoutMs: number
  /** RediSearch's TIMEOUT for each command of a query. */
  queryTimeoutMs: number
  /** On a Redis Cluster, most matches of a query one master answers. */
  maxClusterMatches: number
}

declare module 'fastify' {
  interface FastifyInstance {
    indexes: { storage: IndexStorage, queries: Queries, searchModule: ReturnType<typeof createSearchModuleCheck> }
  }
}

/** Collection indexes (RediSearch on JSON) and the queries they answer. */
export default fp<IndexesPluginOptions>(async function indexesPlugin (app, options) {
  const storage = createIndexStorage(app.redis, app.redisWrites, options)
  const runner = createQueryRunner(app.redis, { keyPrefix: options.keyPrefix, timeoutMs: options.queryTimeoutMs, redisTimeoutMs: options.timeoutMs,
    maxClusterMatches: options.maxClusterMatches
  })
  app.decorate('indexes', {
    storage, queries: createQueries(storage, runner, app.documents, options.keyPrefix), searchModule: createSearchModuleCheck(app.redis, options.timeoutMs)
  })
}, { name: 'indexes', dependencies: ['redis', 'schemas', 'documents'], fastify: '5.x' })
