import fp from 'fastify-plugin'
import { createDocumentStore, type DocumentStore, type DocumentStoreOptions } from './store/index.js'
import { upgradeLayout } from './store/layout.js'

declare module 'fastify' {
  interface FastifyInstance {
    documents: DocumentStore
  }
}

/** Exposes the document store as `app.documents`, enforcing the collections' schemas; upgrades the storage layout first. */
export default fp<DocumentStoreOptions>(async function documentStorePlugin (app, options) {
  const moved = await upgradeLayout(app.redis, options.keyPrefix, app.schemas.storage)
  if (moved > 0) app.log.info(`moved ${moved} version records beside their documents (storage layout 2)`)
  app.decorate('documents', createDocumentStore(app.redis, app.redisWrites, options, app.schemas.rules, app.schemas.validation))
}, { name: 'documents', dependencies: ['redis', 'schemas'], fastify: '5.x' })
