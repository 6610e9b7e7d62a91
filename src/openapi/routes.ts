import type { FastifyInstance } from 'fastify'

const served = { usesStorage: false }

/** GET /openapi.json and /openapi.yaml: the generated description, the same object in two notations. */
export default async function openapiRoutes (app: FastifyInstance) {
  app.get('/openapi.json', {
    config: served,
    schema: {
      operationId: 'getOpenApiJson',
      tags: ['openapi'],
      summary: 'This OpenAPI 3.1 description, as JSON',
      response: { 200: { description: 'The description', content: { 'application/json': { schema: { type: 'object' } } } } }
    }
  }, async (_request, reply) => reply.type('application/json').send(JSON.stringify(app.swagger())))

  app.get('/openapi.yaml', {
    config: served,
    schema: {
      operationId: 'getOpenApiYaml',
      tags: ['openapi'],
      summary: 'This OpenAPI 3.1 description, as YAML',
      response: { 200: { description: 'The description', content: { 'application/yaml': { schema: { type: 'object' } } } } }
    }
  }, async (_request, reply) => reply.type('application/yaml').send(app.swagger({ yaml: true })))
}
