import fp from 'fastify-plugin'
import { createDocumentStore, type DocumentStore, type DocumentStoreOptions } from './store/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    documents: DocumentStore
  }
}

/** Exposes the document store as `app.documents`, enforcing the collections' schemas. */
export default fp<DocumentStoreOptions>(async function documentStorePlugin (app, options) {
  app.decorate('documents', createDocumentStore(app.redis, app.redisWrites, options, app.schemas.rules, app.schemas.validation))
}, { name: 'documents', dependencies: ['redis', 'schemas'], fastify: '5.x' })
