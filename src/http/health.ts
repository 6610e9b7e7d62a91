import type { FastifyInstance } from 'fastify'
import { RedisUnavailableError } from '../errors.js'

/** GET /health: 200 while Redis answers, otherwise the 503 problem; for load balancers and compose. */
export default async function healthRoutes (app: FastifyInstance) {
  app.get('/health', async (_request, reply) => {
    try {
      await app.redis.ping()
    } catch (error) {
      throw new RedisUnavailableError((error as Error).message)
    }
    return reply.type('application/json').send('{"status":"ok"}')
  })
}
