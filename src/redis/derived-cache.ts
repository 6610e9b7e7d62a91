import { cacheKeyOf, type BoundedClientSideCache } from './cache.js'

type CacheEntry = NonNullable<ReturnType<BoundedClientSideCache['get']>>

interface Derived<V> {
  value: V
  /** The cache entries value was computed from: it holds while every one of them does. */
  sources: CacheEntry[]
  epoch: number
}

/** A command and the reply it was answered with. */
export type Replied = [args: readonly string[], reply: string | null]

/**
 * Values computed from replies the client-side cache holds, such as a whole HTTP representation built
 * from a version record and a JSON.GET. A value is served as long as every reply it was computed from
 * is still cached and valid, so Redis' invalidations void it with them. A hit is a map lookup: no
 * command is parsed, no promise made and no reply copied, as a node-redis cache hit would.
 */
export class DerivedCache<V> {
  readonly #cache: BoundedClientSideCache
  readonly #maxEntries: number
  readonly #entries = new Map<string, Derived<V>>()
  /** Values served by get since the start. */
  hits = 0

  constructor (cache: BoundedClientSideCache, maxEntries: number) {
    this.#cache = cache
    this.#maxEntries = maxEntries
  }

  get (name: string): V | undefined {
    const derived = this.#entries.get(name)
    if (derived === undefined) return undefined
    if (derived.epoch === this.#cache.epoch && derived.sources.every((source) => source.validate())) {
      this.hits++
      return derived.value
    }
    this.#entries.delete(name)
    return undefined
  }

  /** Keeps value under name, provided the cache holds these very replies to these commands right now. */
  remember (name: string, replies: readonly Replied[], value: V): void {
    const sources: CacheEntry[] = []
    for (const [args, reply] of replies) {
      const entry = this.#cache.get(cacheKeyOf(args))
      if (entry === undefined || !('value' in entry) || entry.value !== reply || !entry.validate()) return
      sources.push(entry)
    }
    this.#entries.delete(name)
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(name, { value, sources, epoch: this.#cache.epoch })
  }

  get size (): number {
    return this.#entries.size
  }
}
