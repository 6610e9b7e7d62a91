import cluster from 'node:cluster'
import type { AddressInfo } from 'node:net'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Registry } from 'prom-client'
import { clusterScrape, offerMetrics } from './workers-metrics.js'
import type { HttpServerSettings } from '../http/server.js'
import { cacheMetrics, connectionMetrics, problemCounter } from './collectors.js'
import { SeriesHistogram } from './histogram.js'
import { requestObserver, type ProblemTally } from './http-metrics.js'
import { closeListener, listenForScrapes } from './listener.js'
import { observeRedisCalls } from './redis-calls.js'
import type { Scrape } from './routes.js'

export interface MetricsOptions {
  /** Serves GET /metrics alone, without a token, on a second listener. */
  listener?: { host: string, port: number }
  http: HttpServerSettings
  retryAfterSeconds: number
}

/** Seconds: from half a millisecond (a cached read) to past the longest Redis timeout one may set sensibly. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds: from 100 µs (a GET on a unix socket) to the default REDIS_TIMEOUT_MS and beyond. */
const REDIS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics, when some listener serves them. */
    metrics?: {
      scrape: () => Promise<Scrape>
      /** Where the METRICS_PORT listener listens, when there is one. */
      listenerAddress?: AddressInfo
    }
  }
}

/** Renders at most once at a time: concurrent scrapes share the rendering in progress. */
function sharedScrape (render: () => Promise<Scrape>): () => Promise<Scrape> {
  let rendering: Promise<Scrape> | undefined
  return () => rendering ??= render().finally(() => { rendering = undefined })
}

/**
 * Prometheus metrics of the service, in a registry of its own: request durations by route, method and
 * status; Redis call durations by command or script; problems by code; the read caches; connections;
 * and the process' (prom-client's defaults). Registered before the routes, which its hook observes.
 * Served at GET /metrics to the admin token, and on METRICS_PORT to anyone who reaches it. Registered
 * only when one of them is set: nothing observes requests that no one can scrape.
 */
export default fp<MetricsOptions>(async function metricsPlugin (app, options) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new SeriesHistogram('jsondocs_http_request_duration_seconds',
    'Time from routing a request to sending the last byte of its answer, by route pattern, method and status',
    ['route', 'method', 'status_code'], REQUEST_BUCKETS).registerIn(registry)
  const redisCalls = new SeriesHistogram('jsondocs_redis_command_duration_seconds',
    'Time from sending a Redis command to its reply, by command, or by script as script:<name>',
    ['command'], REDIS_BUCKETS).registerIn(registry)
  const problems: ProblemTally = new Map()
  problemCounter(registry, () => [problems, app.connections.problems])
  cacheMetrics(registry, () => app.answerCache.counts(), app.redis.cache)
  connectionMetrics(registry, app.connections)

  app.addHook('onResponse', requestObserver(requests, problems))
  const stopObservingRedis = observeRedisCalls(app.redis, app.redisWrites, redisCalls)
  app.addHook('onClose', async () => stopObservingRedis())

  // With WORKERS, a scrape answers for every worker: the primary sums their registries.
  if (cluster.isWorker) offerMetrics(registry)
  const scrape = sharedScrape(cluster.isWorker
    ? clusterScrape
    : async () => ({ contentType: registry.contentType, text: await registry.metrics() }))
  app.decorate('metrics', { scrape })
  if (options.listener !== undefined) {
    const server = await listenForScrapes(scrape, { ...options.listener, http: options.http, retryAfterSeconds: options.retryAfterSeconds, log: app.log })
    app.metrics!.listenerAddress = server.address() as AddressInfo
    app.addHook('onClose', () => closeListener(server))
  }
}, { name: 'metrics', fastify: '5.x', dependencies: ['redis', 'answer-cache', 'problems'] })
