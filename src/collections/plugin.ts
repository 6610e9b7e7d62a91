import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createSchemaRules, type SchemaRules } from './rules.js'
import { createSchemaStorage, type SchemaStorage } from './storage.js'
import { ValidationPool, type ValidationSettings } from './validation-pool.js'

export interface SchemasPluginOptions {
  keyPrefix: string
  collectionSeparator: string
  timeoutMs: number
  validation: ValidationSettings
  /** A started pool to use instead, which its owner closes (see BuildOptions). */
  sharedValidation?: ValidationPool
}

declare module 'fastify' {
  interface FastifyInstance {
    schemas: { storage: SchemaStorage, rules: SchemaRules, validation: ValidationPool, separator: string }
  }
}

/**
 * Collection schemas: where they are stored (Redis), the rules this instance enforces from them, and the
 * worker threads that compile them and validate documents.
 */
export default fp<SchemasPluginOptions>(async function schemasPlugin (app, options) {
  const storage = createSchemaStorage(app.redis, app.redisWrites, { ...options, slotMirrors: app.redis.isCluster })
  const validation = options.sharedValidation ?? await startedPool(options.validation, app)
  app.decorate('schemas', {
    storage,
    rules: createSchemaRules(storage, validation, options.collectionSeparator, app.log),
    validation,
    separator: options.collectionSeparator
  })
}, { name: 'schemas', dependencies: ['redis'], fastify: '5.x' })

/** A pool of the app's own, closed with it. */
async function startedPool (settings: ValidationSettings, app: FastifyInstance): Promise<ValidationPool> {
  const validation = new ValidationPool(settings, app.log)
  app.addHook('onClose', async () => validation.close())
  try {
    await validation.start()
  } catch (error) {
    await validation.close()
    throw error
  }
  return validation
}
