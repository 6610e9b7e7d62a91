import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { declareRoutes, PUBLIC } from '../access/plugin.js'

/**
 * GET /openapi.json and /openapi.yaml, the generated description in two notations, and /reference, its
 * interactive reference page.
 */
export default async function openapiRoutes (app: FastifyInstance) {
  // Serialised once: the description never changes while the service runs, and it is a few hundred kB.
  let json: string | undefined
  const config = { access: PUBLIC }
  app.get('/openapi.json', {
    config,
    schema: {
      operationId: 'getOpenApiJson',
      tags: ['openapi'],
      summary: 'This OpenAPI 3.1 description, as JSON',
      response: { 200: { description: 'The description', content: { 'application/json': { schema: { type: 'object' } } } } }
    }
  }, async (_request, reply) => reply.type('application/json').send(json ??= JSON.stringify(app.swagger())))

  app.get('/openapi.yaml', {
    config,
    schema: {
      operationId: 'getOpenApiYaml',
      tags: ['openapi'],
      summary: 'This OpenAPI 3.1 description, as YAML',
      response: { 200: { description: 'The description', content: { 'application/yaml': { schema: { type: 'object' } } } } }
    }
  }, async (_request, reply) => reply.type('application/yaml').send(app.swagger({ yaml: true })))

  await app.register(async function referencePage (scope) {
    declareRoutes(scope, PUBLIC)
    await scope.register(swaggerUi, { routePrefix: '/reference', uiConfig: { deepLinking: true, tryItOutEnabled: true } })
  })
}
