import fp from 'fastify-plugin'
import { createSchemaRules, type SchemaRules } from './rules.js'
import { createSchemaStorage, type SchemaStorage } from './storage.js'

export interface SchemasPluginOptions {
  keyPrefix: string
  collectionSeparator: string
  timeoutMs: number
}

declare module 'fastify' {
  interface FastifyInstance {
    schemas: { storage: SchemaStorage, rules: SchemaRules, separator: string }
  }
}

/** Collection schemas: where they are stored (Redis) and the rules this instance enforces from them. */
export default fp<SchemasPluginOptions>(async function schemasPlugin (app, options) {
  const storage = createSchemaStorage(app.redis, options)
  app.decorate('schemas', {
    storage,
    rules: createSchemaRules(storage, options.collectionSeparator, app.log),
    separator: options.collectionSeparator
  })
}, { name: 'schemas', dependencies: ['redis'], fastify: '5.x' })
