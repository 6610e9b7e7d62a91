import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { AppConfig } from './config.js'
import collectionRoutes from './documents/collection-routes.js'
import documentRoutes from './documents/routes.js'
import { collectionAnswerSchemas } from './documents/collection-route-schemas.js'
import { documentAnswerSchemas } from './documents/route-schemas.js'
import { sharedSchemas } from './documents/schemas.js'
import documentStorePlugin from './documents/store-plugin.js'
import healthRoutes from './http/health.js'
import openapiPlugin from './openapi/plugin.js'
import openapiRoutes from './openapi/routes.js'
import { EarlyAnswers } from './http/early-answers.js'
import jsonParserPlugin from './http/json-parser.js'
import methodNotAllowedRoutes, { recordRouteMethods, routeEveryMethod } from './http/methods.js'
import problemsPlugin, { sendProblem } from './http/problems.js'
import requestIdPlugin, { requestIdOf } from './http/request-id.js'
import { HttpServer, type ConnectionCounts } from './http/server.js'
import { createValidatorCompiler } from './http/validation.js'
import metricsPlugin from './metrics/plugin.js'
import redisPlugin from './redis/plugin.js'
import schemasPlugin from './schemas/plugin.js'
import { collectionSchemaComponents } from './schemas/route-schemas.js'
import schemaRoutes from './schemas/routes.js'

/** Schemas that request bodies reference by `$id`: the validators know them. */
const bodySchemas = [...sharedSchemas, ...collectionSchemaComponents]
/** Every named schema: each becomes an OpenAPI component that bodies and answers reference. */
const namedSchemas = [...bodySchemas, ...documentAnswerSchemas, ...collectionAnswerSchemas]

declare module 'fastify' {
  interface FastifyInstance {
    /** What the HTTP server counts of its connections. */
    connections: ConnectionCounts
  }
}

/** Builds the service, ready to inject or listen. Reads nothing from the environment. */
export async function buildApp (config: AppConfig, logger?: FastifyServerOptions['loggerInstance']): Promise<FastifyInstance> {
  const earlyAnswers = new EarlyAnswers()
  const httpServer = new HttpServer(config.http, config.retryAfterSeconds)
  const app = Fastify({
    // The Node server owns connections: their order, limits and timeouts, and what its parser refuses.
    serverFactory: (handler) => httpServer.create(earlyAnswers.before(handler)),
    clientErrorHandler: httpServer.clientErrorHandler,
    // Requests arriving while the app closes are served, each closing its connection, rather than refused.
    return503OnClosing: false,
    ...(logger ? { loggerInstance: logger } : { logger: { level: config.logLevel } }),
    // A key may take 1024 bytes, 3072 characters once percent-encoded; Node bounds the whole URL anyway.
    routerOptions: { maxParamLength: 16 * 1024 },
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    // The client's X-Request-Id when well formed, else a UUID: pino binds it to the request's log lines as reqId.
    genReqId: requestIdOf,
    bodyLimit: config.bodyLimit,
    frameworkErrors: (error, _request, reply) => sendProblem(reply, 'DOCS_ERR_BAD_REQUEST', error.message)
  }) as unknown as FastifyInstance

  app.decorate('earlyAnswers', earlyAnswers)
  app.decorate('connections', httpServer)
  routeEveryMethod(app)
  app.addHook('preClose', async () => {
    earlyAnswers.remove()
    httpServer.close()
  })
  const routeMethods = recordRouteMethods(app)
  app.setValidatorCompiler(createValidatorCompiler(bodySchemas))
  for (const schema of namedSchemas) app.addSchema(schema)
  try {
    await app.register(problemsPlugin, { retryAfterSeconds: config.retryAfterSeconds })
    await app.register(openapiPlugin)
    await app.register(redisPlugin, {
      connection: config.redis, commandTimeoutMs: config.redisTimeoutMs, cacheMaxEntries: config.cacheMaxEntries,
      trackedPrefix: config.keyPrefix
    })
    await app.register(jsonParserPlugin, { bodyLimit: config.bodyLimit, maxDepth: config.maxDepth })
    await app.register(schemasPlugin, {
      keyPrefix: config.keyPrefix, collectionSeparator: config.collectionSeparator, timeoutMs: config.redisTimeoutMs,
      validation: config.validation
    })
    await app.register(documentStorePlugin, { keyPrefix: config.keyPrefix, timeoutMs: config.redisTimeoutMs, limits: config.limits })

    // Cross-cutting hooks, before every route they apply to.
    await app.register(requestIdPlugin)
    if (config.adminToken !== undefined || config.metricsListener !== undefined) {
      await app.register(metricsPlugin, {
        adminToken: config.adminToken, listener: config.metricsListener, http: config.http, retryAfterSeconds: config.retryAfterSeconds
      })
    }

    await app.register(healthRoutes, { timeoutMs: config.redisTimeoutMs })
    // Plain reads are answered before fastify meets them, unless every request is to be logged.
    await app.register(documentRoutes, { maxDepth: config.maxDepth, ...(config.logRequests ? {} : { earlyAnswers }) })
    await app.register(collectionRoutes, { maxDepth: config.maxDepth })
    await app.register(schemaRoutes)
    await app.register(openapiRoutes)
    await app.register(methodNotAllowedRoutes, { methods: routeMethods })

    await app.ready()
  } catch (error) {
    // A plugin that failed to start leaves the others' resources (the Redis client, the validation
    // workers) to close, or they would keep the process alive.
    await app.close().catch(() => undefined)
    throw error
  }
  return app
}
