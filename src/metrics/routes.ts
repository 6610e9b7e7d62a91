import type { FastifyInstance } from 'fastify'
import { adminOnly } from '../http/admin-token.js'
import { problemResponse } from '../openapi/components.js'

/** The metrics as Prometheus scrapes them. */
export interface Scrape {
  contentType: string
  text: string
}

export interface MetricsRoutesOptions {
  adminToken: string
  scrape: () => Promise<Scrape>
}

const metricsSchema = {
  operationId: 'getMetrics',
  tags: ['metrics'],
  summary: 'The service\'s metrics, in Prometheus text format (needs the admin token)',
  description: 'Served on the service\'s port only when AUTH_ADMIN_TOKEN is set, to `Authorization: Bearer <AUTH_ADMIN_TOKEN>`; ' +
    'METRICS_PORT serves the same text on a second listener, without a token. The metrics are listed in the README.',
  security: [{ adminToken: [] }],
  response: {
    200: {
      description: 'Prometheus text exposition format 0.0.4',
      content: { 'text/plain': { schema: { type: 'string' } } }
    },
    401: problemResponse(401)
  }
}

/** GET /metrics on the service's port, to the admin token alone: the metrics reveal the traffic. */
export default async function metricsRoutes (app: FastifyInstance, { adminToken, scrape }: MetricsRoutesOptions) {
  app.get('/metrics', { schema: metricsSchema, onRequest: adminOnly(adminToken) }, async (_request, reply) => {
    const { contentType, text } = await scrape()
    return reply.header('Cache-Control', 'no-store').type(contentType).send(text)
  })
}
