import fp from 'fastify-plugin'
import { createDocumentStore, type DocumentStore, type DocumentStoreOptions } from './store/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    documents: DocumentStore
  }
}

/** Exposes the document store as `app.documents`. */
export default fp<DocumentStoreOptions>(async function documentStorePlugin (app, options) {
  app.decorate('documents', createDocumentStore(app.redis, options))
}, { name: 'documents', dependencies: ['redis'], fastify: '5.x' })
