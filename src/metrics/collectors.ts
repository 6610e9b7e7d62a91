import { Counter, Gauge, type Registry } from 'prom-client'
import { problemTypes, type ProblemCode } from '../errors.js'
import type { ConnectionCounts } from '../http/server.js'
import type { BoundedClientSideCache } from '../redis/cache.js'

/*
 * Metrics read when Prometheus scrapes, from counts the service keeps anyway: nothing per request.
 */

/** Answers with a problem, by code and status: those fastify sent and those the HTTP server sent below it. */
export function problemCounter (registry: Registry, sources: () => Array<ReadonlyMap<ProblemCode, number>>): void {
  new Counter({
    name: 'jsondocs_problems_total',
    help: 'Answers that are problems (application/problem+json), by problem code and status, whichever layer sent them',
    labelNames: ['code', 'status_code'],
    registers: [registry],
    collect () {
      this.reset()
      for (const source of sources()) {
        for (const [code, count] of source) this.inc({ code, status_code: problemTypes[code].status }, count)
      }
    }
  })
}

export interface AnswerCacheCounts {
  hits: number
  misses: number
  entries: number
}

/**
 * The two caches of reads (docs/operations.md, Client-side caching): `answers`, whole answers the service recalls
 * (store.recall), and `replies`, node-redis' client-side cache of Redis replies the answers are built from.
 */
export function cacheMetrics (registry: Registry, answers: () => AnswerCacheCounts, replies: BoundedClientSideCache | undefined): void {
  new Counter({
    name: 'jsondocs_cache_lookups_total',
    help: 'Lookups in the read caches, by cache (answers, replies) and result (hit, miss)',
    labelNames: ['cache', 'result'],
    registers: [registry],
    collect () {
      this.reset()
      const { hits, misses } = answers()
      this.inc({ cache: 'answers', result: 'hit' }, hits)
      this.inc({ cache: 'answers', result: 'miss' }, misses)
      if (!replies) return
      const stats = replies.stats()
      this.inc({ cache: 'replies', result: 'hit' }, stats.hitCount)
      this.inc({ cache: 'replies', result: 'miss' }, stats.missCount)
    }
  })
  new Gauge({
    name: 'jsondocs_cache_entries',
    help: 'Entries the read caches hold, by cache (answers, replies)',
    labelNames: ['cache'],
    registers: [registry],
    collect () {
      this.set({ cache: 'answers' }, answers().entries)
      this.set({ cache: 'replies' }, replies?.size() ?? 0)
    }
  })
}

/** What the HTTP server holds: connections open and idle, large uploads being read and waiting their turn. */
export function connectionMetrics (registry: Registry, connections: ConnectionCounts): void {
  new Gauge({
    name: 'jsondocs_http_connections',
    help: 'Client connections, by state (open: all of them; idle: between requests)',
    labelNames: ['state'],
    registers: [registry],
    collect () {
      this.set({ state: 'open' }, connections.open)
      this.set({ state: 'idle' }, connections.idle)
    }
  })
  new Gauge({
    name: 'jsondocs_http_uploads',
    help: 'Requests with a large body, by state (active: being read or handled; waiting: for their turn)',
    labelNames: ['state'],
    registers: [registry],
    collect () {
      const { active, waiting } = connections.uploads
      this.set({ state: 'active' }, active)
      this.set({ state: 'waiting' }, waiting)
    }
  })
}
