import type { FastifyInstance } from 'fastify'
import { PUBLIC } from '../access/plugin.js'
import { RedisUnavailableError } from '../errors.js'
import { withDeadline } from '../redis/deadline.js'
import { jsonResponse } from '../openapi/components.js'

const healthSchema = {
  operationId: 'getHealth',
  tags: ['health'],
  summary: 'Whether the service and its Redis answer',
  response: {
    200: jsonResponse('Redis answers', {
      type: 'object', properties: { status: { type: 'string', const: 'ok' } }, required: ['status'], additionalProperties: false
    })
  }
}

/** GET /health: 200 while Redis answers, otherwise the 503 problem; for load balancers and compose. */
export default async function healthRoutes (app: FastifyInstance, options: { timeoutMs: number }) {
  app.get('/health', { schema: healthSchema, config: { access: PUBLIC } }, async (_request, reply) => {
    await withDeadline(app.redis.ping(), options.timeoutMs).catch((error: Error) => {
      throw error instanceof RedisUnavailableError ? error : new RedisUnavailableError(error.message)
    })
    return reply.type('application/json').send('{"status":"ok"}')
  })
}
