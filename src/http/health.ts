import type { FastifyInstance, FastifyReply } from 'fastify'
import { PUBLIC } from '../access/plugin.js'
import { NotReadyError, RedisUnavailableError, withExtensions } from '../errors.js'
import { currentLibrary } from '../redis/lua-script.js'
import { readinessCheck } from '../redis/readiness.js'
import { jsonResponse } from '../openapi/components.js'

const OK = '{"status":"ok"}'
/** Ready, on a Redis without the Search module: documents are served, indexes and queries are not. */
const OK_WITHOUT_SEARCH = JSON.stringify({
  status: 'ok', search: 'absent', detail: 'This Redis has no Search module (RediSearch): index and query routes answer 501 DOCS_ERR_NO_SEARCH'
})

const okResponse = (description: string) => jsonResponse(description, {
  type: 'object',
  properties: {
    status: { type: 'string', const: 'ok' },
    search: { type: 'string', const: 'absent', description: 'Present when Redis has no Search module: index and query routes are 501' },
    detail: { type: 'string' }
  },
  required: ['status'],
  additionalProperties: false
})

const probeSchema = (operationId: string, summary: string, description: string) =>
  ({ operationId, tags: ['health'], summary, response: { 200: okResponse(description) } })

const livezSchema = probeSchema('getLivez', 'Whether the process answers (no call to Redis)', 'The process answers')
const readyzSchema = probeSchema('getReadyz',
  'Whether the service can serve: Redis answers, its JSON module and the service\'s scripts are loaded', 'Ready to serve')
const healthSchema = probeSchema('getHealth', 'The same as /readyz, kept for load balancers and compose files', 'Ready to serve')

function answerOk (reply: FastifyReply, text = OK) {
  return reply.header('Cache-Control', 'no-store').type('application/json').send(text)
}

/**
 * The probes, public and never cached. GET /livez: the process answers. GET /readyz (and /health, its
 * older name): Redis answers, with RedisJSON and every script the service runs; else the 503 problem,
 * with what is not ready in `unready`. A Redis without the Search module is ready, and the answer says so.
 */
export default async function healthRoutes (app: FastifyInstance, options: { timeoutMs: number }) {
  const config = { access: PUBLIC }
  const check = readinessCheck(app.redis, options.timeoutMs, currentLibrary)

  app.get('/livez', { schema: livezSchema, config }, async (_request, reply) => answerOk(reply))

  async function ready (_request: unknown, reply: FastifyReply) {
    reply.header('Cache-Control', 'no-store')
    const { unready, search } = await check()
    if (unready.length === 0) return answerOk(reply, search ? OK : OK_WITHOUT_SEARCH)
    const details = unready.map((item) => item.detail).join('; ')
    const error = unready[0]!.check === 'redis' ? new RedisUnavailableError(details) : new NotReadyError(details)
    throw withExtensions(error, { unready })
  }
  app.get('/readyz', { schema: readyzSchema, config }, ready)
  app.get('/health', { schema: healthSchema, config }, ready)
}
