import fp from 'fastify-plugin'
import { BoundedClientSideCache } from '../redis/cache.js'
import { DerivedCache } from '../redis/derived-cache.js'
import type { StoredValue } from './store/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    answerCache: AnswerCache
  }
}

/**
 * Whole answers to document reads (JSON text, ETag, expiry), kept under a name (the request's URL) for as
 * long as node-redis' client-side cache holds every reply they were read from: Redis' invalidations, the
 * service's own writes and a lost connection void them with those replies. With the client-side cache
 * off it keeps nothing. Consulted by the read routes after every request hook (see document-routes.ts).
 */
export class AnswerCache {
  readonly #answers: DerivedCache<StoredValue> | undefined
  #hits = 0
  #misses = 0

  constructor (replies: unknown) {
    this.#answers = replies instanceof BoundedClientSideCache ? new DerivedCache(replies, replies.maxEntries) : undefined
  }

  /** The answer kept under name, unless a reply it was read from has changed or the document has expired. */
  recall (name: string): StoredValue | undefined {
    const answer = this.#answers?.get(name)
    if (answer === undefined || (answer.expiresAt !== undefined && answer.expiresAt <= Date.now())) {
      this.#misses++
      return undefined
    }
    this.#hits++
    return answer
  }

  /** Keeps a read's answer under name, when it was read from replies the client-side cache holds. */
  remember (name: string, answer: StoredValue): void {
    if (this.#answers !== undefined && answer.sources !== undefined) this.#answers.remember(name, answer.sources, answer)
  }

  /** Reads answered by recall since the start. */
  get hits (): number {
    return this.#hits
  }

  /** What recall found since the start (hits), what it did not (misses), and the answers kept now. */
  counts (): { hits: number, misses: number, entries: number } {
    return { hits: this.#hits, misses: this.#misses, entries: this.#answers?.size ?? 0 }
  }
}

/** Decorates `app.answerCache`, built on the Redis client's client-side cache. */
export default fp(async function answerCachePlugin (app) {
  app.decorate('answerCache', new AnswerCache(app.redis.cache))
}, { name: 'answer-cache', dependencies: ['redis'], fastify: '5.x' })
