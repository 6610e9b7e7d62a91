import type { FastifyInstance } from 'fastify'
import { ADMIN_ONLY } from '../access/plugin.js'
import { problemResponse } from '../openapi/components.js'

/** The metrics as Prometheus scrapes them. */
export interface Scrape {
  contentType: string
  text: string
}

const metricsSchema = {
  operationId: 'getMetrics',
  tags: ['metrics'],
  summary: 'The service\'s metrics, in Prometheus text format (needs the admin token)',
  description: 'Served to the admin token, `Authorization: Bearer <AUTH_ADMIN_TOKEN>` (to everyone when access is not enforced); ' +
    'METRICS_PORT serves the same text on a second listener, without a token. The metrics are listed in docs/operations.md (Metrics).',
  response: {
    200: {
      description: 'Prometheus text exposition format 0.0.4',
      content: { 'text/plain': { schema: { type: 'string' } } }
    },
    401: problemResponse(401),
    403: problemResponse(403)
  }
}

/** GET /metrics on the service's port, to the admin alone: the metrics reveal the traffic. */
export default async function metricsRoutes (app: FastifyInstance) {
  const { scrape } = app.metrics!
  app.get('/metrics', { schema: metricsSchema, config: { access: ADMIN_ONLY } }, async (_request, reply) => {
    const { contentType, text } = await scrape()
    return reply.header('Cache-Control', 'no-store').type(contentType).send(text)
  })
}
