import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify'
import accessPlugin from './access/plugin.js'
import { RateLimiter } from './access/rate-limit.js'
import { tokenAnswerSchemas, tokenBodySchemas } from './access/route-schemas.js'
import { ticketAnswerSchemas, ticketBodySchemas } from './live/ticket-route-schemas.js'
import tokenRoutes from './access/routes.js'
import type { AppConfig } from './config.js'
import batchRoutes from './documents/routes/batch-routes.js'
import { batchAnswerSchemas } from './documents/routes/batch-route-schemas.js'
import documentRoutes from './documents/routes/document-routes.js'
import { documentAnswerSchemas } from './documents/routes/document-route-schemas.js'
import listingRoutes from './documents/routes/listing-routes.js'
import { listingAnswerSchemas } from './documents/routes/listing-route-schemas.js'
import metaRoutes from './documents/routes/meta-routes.js'
import { metaAnswerSchemas } from './documents/routes/meta-route-schemas.js'
import ttlRoutes from './documents/routes/ttl-routes.js'
import { ttlAnswerSchemas } from './documents/routes/ttl-route-schemas.js'
import answerCachePlugin from './documents/answer-cache.js'
import { sharedSchemas } from './documents/body-schemas.js'
import documentStorePlugin from './documents/store-plugin.js'
import livePlugin from './live/plugin.js'
import { ServiceLogController } from './http/log-controller.js'
import ticketRoutes from './live/ticket-routes.js'
import healthRoutes from './http/health.js'
import openapiPlugin from './openapi/plugin.js'
import openapiRoutes from './openapi/routes.js'
import sdkRoutes from './sdk/plugin.js'
import consoleRoutes from './console/plugin.js'
import corsPlugin from './http/cors.js'
import jsonParserPlugin from './http/json-parser.js'
import methodNotAllowedRoutes, { recordRouteMethods, routeEveryMethod } from './http/methods.js'
import problemsPlugin, { sendProblem } from './http/problems.js'
import requestIdPlugin, { requestIdOf } from './http/request-id.js'
import { HttpServer, type ConnectionCounts } from './http/server.js'
import { createValidatorCompiler } from './http/validation.js'
import { referencedSchemasSerializer } from './http/serializers.js'
import metricsPlugin from './metrics/plugin.js'
import metricsRoutes from './metrics/routes.js'
import redisPlugin from './redis/plugin.js'
import type { ValidationPool } from './collections/validation-pool.js'
import collectionsPlugin from './collections/plugin.js'
import { collectionSchemaComponents } from './collections/schema-route-schemas.js'
import schemaRoutes from './collections/schema-routes.js'
import indexesPlugin from './collections/indexes/plugin.js'
import { indexAnswerSchemas, indexSchemaComponents } from './collections/indexes/route-schemas.js'
import { aggregateAnswerSchemas, aggregateSchemaComponents } from './collections/indexes/aggregate-route-schemas.js'
import indexRoutes from './collections/indexes/routes.js'

/** Schemas that request bodies reference by `$id`: the validators know them. */
const bodySchemas = [...sharedSchemas, ...collectionSchemaComponents, ...indexSchemaComponents, ...aggregateSchemaComponents, ...tokenBodySchemas, ...ticketBodySchemas]
/** Every named schema: each becomes an OpenAPI component that bodies and answers reference. */
const namedSchemas = [
  ...bodySchemas, ...documentAnswerSchemas, ...listingAnswerSchemas, ...batchAnswerSchemas, ...ttlAnswerSchemas, ...metaAnswerSchemas,
  ...tokenAnswerSchemas, ...indexAnswerSchemas, ...aggregateAnswerSchemas, ...ticketAnswerSchemas
]

/** Headers that carry credentials, never written to a log line (pino's redact option). */
export const logRedaction = {
  paths: ['req.headers.authorization', 'headers.authorization', 'request.headers.authorization', 'res.headers.authorization'],
  censor: '[redacted]'
}

declare module 'fastify' {
  interface FastifyInstance {
    /** What the HTTP server counts of its connections. */
    connections: ConnectionCounts
  }
}

/** What buildApp takes beside the configuration. */
export interface BuildOptions {
  /** The logger to use; by default one at the configured level. */
  logger?: FastifyServerOptions['loggerInstance']
  /**
   * Cross-cutting plugins (access checks, CORS, rate limits, metrics), in a tier of their own after the
   * app's services and before every route. Each must be unencapsulated (wrapped with fastify-plugin), so
   * that the hooks it adds meet every request on every route, cached reads included, before the route's
   * own hooks.
   */
  crossCutting?: readonly FastifyPluginAsync[]
  /**
   * A started validation pool for the app to use rather than start its own from `config.validation`; its
   * owner closes it. Apps in one process may share one: a worker keeps compiled schemas by the hash of their
   * text, whatever the app.
   */
  validation?: ValidationPool
}

/** Builds the service, ready to inject or listen. Reads nothing from the environment. */
export async function buildApp (config: AppConfig, { logger, crossCutting = [], validation }: BuildOptions = {}): Promise<FastifyInstance> {
  const httpServer = new HttpServer(config.http, config.retryAfterSeconds)
  const app = Fastify({
    // The Node server owns connections: their order, limits and timeouts, and what its parser refuses.
    serverFactory: (handler) => httpServer.create(handler),
    clientErrorHandler: httpServer.clientErrorHandler,
    // Requests arriving while the app closes are served, each closing its connection, rather than refused.
    return503OnClosing: false,
    ...(logger ? { loggerInstance: logger } : { logger: { level: config.logLevel, redact: logRedaction } }),
    // A key may take 1024 bytes, 3072 characters once percent-encoded; Node bounds the whole URL anyway.
    routerOptions: { maxParamLength: 16 * 1024 },
    logController: new ServiceLogController({ disableRequestLogging: !config.logRequests }),
    // The client's X-Request-Id when well formed, else a UUID: pino binds it to the request's log lines as reqId.
    genReqId: requestIdOf,
    bodyLimit: config.bodyLimit,
    frameworkErrors: (error, _request, reply) => sendProblem(reply, 'DOCS_ERR_BAD_REQUEST', error.message),
    schemaController: { compilersFactory: { buildSerializer: referencedSchemasSerializer } }
  }) as unknown as FastifyInstance

  app.decorate('connections', httpServer)
  routeEveryMethod(app)
  app.addHook('preClose', async () => httpServer.close())
  const routeMethods = recordRouteMethods(app)
  app.setValidatorCompiler(createValidatorCompiler(bodySchemas))
  for (const schema of namedSchemas) app.addSchema(schema)
  try {
    // External: problem rendering, and the description every route registered later joins.
    await app.register(problemsPlugin, { retryAfterSeconds: config.retryAfterSeconds })
    await app.register(openapiPlugin, { basePath: config.basePath })
    // The app's services.
    await app.register(redisPlugin, {
      connection: config.redis, commandTimeoutMs: config.redisTimeoutMs, cacheMaxEntries: config.cacheMaxEntries,
      trackedPrefix: config.keyPrefix, ...(config.writeReplicas === undefined ? {} : { writeReplicas: config.writeReplicas })
    })
    await app.register(jsonParserPlugin, { bodyLimit: config.bodyLimit, maxDepth: config.maxDepth })
    await app.register(collectionsPlugin, {
      keyPrefix: config.keyPrefix, collectionSeparator: config.collectionSeparator, timeoutMs: config.redisTimeoutMs,
      validation: config.validation, ...(validation === undefined ? {} : { sharedValidation: validation })
    })
    await app.register(documentStorePlugin, {
      keyPrefix: config.keyPrefix, timeoutMs: config.redisTimeoutMs, limits: config.limits, events: config.events
    })
    await app.register(answerCachePlugin)
    await app.register(indexesPlugin, {
      keyPrefix: config.keyPrefix, collectionSeparator: config.collectionSeparator, timeoutMs: config.redisTimeoutMs,
      queryTimeoutMs: config.queryTimeoutMs, maxClusterMatches: config.maxClusterMatches,
      maxAggregateMatches: config.maxAggregateMatches
    })

    // Cross-cutting hooks, which every request on every route meets before the route's own: the request id
    // first, so that every answer carries it; then access, so that a request it refuses costs nothing more.
    // Every route registered later declares its access rule.
    await app.register(requestIdPlugin)
    // CORS before access: preflights carry no credentials, and refusals must be readable by browsers.
    if (config.corsOrigins !== undefined) await app.register(corsPlugin, { origins: config.corsOrigins })
    await app.register(accessPlugin, {
      settings: config.access, keyPrefix: config.keyPrefix, collectionSeparator: config.collectionSeparator,
      timeoutMs: config.redisTimeoutMs, ticketTtlMs: config.streams.ticketTtlMs,
      ...(config.rateLimit === undefined
        ? {}
        : { rateLimiters: new Map([...config.rateLimit].map(([name, limit]) =>
          [name, new RateLimiter(limit, app.redis, { keyPrefix: config.keyPrefix, timeoutMs: config.redisTimeoutMs })])) })
    })
    if (metricsScraped(config)) {
      await app.register(metricsPlugin, { listener: config.metricsListener, http: config.http, retryAfterSeconds: config.retryAfterSeconds })
    }
    for (const plugin of crossCutting) await app.register(unencapsulated(plugin))
    // Live streams hang on the credentials the access tier verified: a service of its own, after it.
    await app.register(livePlugin, {
      connection: config.redis, timeoutMs: config.redisTimeoutMs, keyPrefix: config.keyPrefix, events: config.events, streams: config.streams
    })

    // The routes, under BASE_PATH, and a 405 for every method each route lacks.
    await app.register(serviceRoutes(config), { prefix: config.basePath })
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

/** Every route of the service, registered under BASE_PATH. */
function serviceRoutes (config: AppConfig): FastifyPluginAsync {
  return async function routes (app) {
    await app.register(healthRoutes, { timeoutMs: config.redisTimeoutMs })
    await app.register(documentRoutes, { maxDepth: config.maxDepth })
    await app.register(listingRoutes)
    await app.register(batchRoutes, { maxDepth: config.maxDepth })
    await app.register(ttlRoutes)
    await app.register(metaRoutes)
    await app.register(schemaRoutes)
    await app.register(indexRoutes)
    await app.register(tokenRoutes)
    await app.register(ticketRoutes)
    if (app.metrics && hasAdmin(config)) await app.register(metricsRoutes)
    await app.register(openapiRoutes)
    await app.register(sdkRoutes)
    await app.register(consoleRoutes)
  }
}

/** Whether anyone is the admin: the admin token's holder, or everyone when access is not enforced. */
function hasAdmin (config: AppConfig): boolean {
  return config.access.open || config.access.adminToken !== undefined
}

/**
 * Whether anyone can scrape the metrics: the admin at GET /metrics, or whoever reaches METRICS_PORT.
 * Otherwise nothing observes requests that no one would see.
 */
function metricsScraped (config: AppConfig): boolean {
  return hasAdmin(config) || config.metricsListener !== undefined
}

/** A cross-cutting plugin, refused when encapsulated: its hooks would never meet a route. */
function unencapsulated (plugin: FastifyPluginAsync): FastifyPluginAsync {
  if ((plugin as unknown as Record<symbol, unknown>)[Symbol.for('skip-override')] !== true) {
    throw new Error(`The cross-cutting plugin ${plugin.name || '(anonymous)'} must be wrapped with fastify-plugin`)
  }
  return plugin
}
