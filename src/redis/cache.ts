import { BasicPooledClientSideCache, type CommandParser, type RedisArgument } from 'redis'

/**
 * Longest reply the cache keeps, in UTF-16 code units. node-redis bounds the cache by entries only,
 * so this bounds its memory too: at most maxEntries times this (twice that for text outside Latin-1).
 */
export const MAX_CACHED_LENGTH = 64 * 1024

/**
 * node-redis' client-side cache (RESP3 tracking: Redis invalidates what it changes, a lost connection
 * drops everything), refusing replies longer than MAX_CACHED_LENGTH.
 *
 * Tracking is BCAST over the service's key prefix: Redis tells this client about every change under it,
 * rather than remembering each key the client reads. In the default mode Redis remembers, for every
 * read-only command a script runs, every key the script declares: a batch script over 1000 documents
 * spent a second of Redis time doing that. Tracking is NOLOOP too: Redis does not tell this client
 * about its own writes, so whoever writes through this client calls forgetKeys.
 *
 * It is node-redis' pooled kind, which a cluster shares among its nodes' connections (each tracks the
 * keys its node serves), and which serves one client as well.
 */
export class BoundedClientSideCache extends BasicPooledClientSideCache {
  /** Counts the times the cache dropped everything (a lost connection, a flush): what was derived before is void. */
  epoch = 0
  readonly #trackedPrefix: string

  constructor ({ maxEntries, trackedPrefix }: { maxEntries: number, trackedPrefix: string }) {
    super({ maxEntries })
    this.#trackedPrefix = trackedPrefix
  }

  /** Its statistics run on through a clear: they count since the start, as metrics' counters do. */
  override clear (): void {
    this.epoch++
    super.clear(false)
  }

  override trackingOn (): string[] {
    const prefix = this.#trackedPrefix === '' ? [] : ['PREFIX', this.#trackedPrefix]
    return ['CLIENT', 'TRACKING', 'ON', 'BCAST', ...prefix, 'NOLOOP']
  }

  override set (...[cacheKey, entry, keys]: Parameters<BasicPooledClientSideCache['set']>): void {
    const value = 'value' in entry ? entry.value : undefined
    if (typeof value === 'string' && value.length > MAX_CACHED_LENGTH) return this.delete(cacheKey)
    super.set(cacheKey, entry, keys)
  }
}

/**
 * The key node-redis files a command's reply under (its generateCacheKey, which it does not export).
 * Were an upgrade to change it, derived values would find no replies and never be kept: slower, never stale.
 */
export function cacheKeyOf (args: readonly string[]): string {
  return [...args.map((arg) => arg.length), ...args].join('_')
}

/**
 * Read commands whose replies node-redis may cache, kept as Redis sends them. node-redis caches only
 * its typed commands (never raw sendCommand), and its own JSON.GET parses the reply, which would lose
 * what RedisJSON's text holds (64-bit integers, `1.0`).
 */
export const cacheableReads = {
  /** JSON.GET key path: RedisJSON's serialisation, untouched. */
  jsonGet: {
    CACHEABLE: true,
    parseCommand (parser: CommandParser, key: RedisArgument, path: RedisArgument) {
      parser.push('JSON.GET')
      parser.pushKey(key)
      parser.push(path)
    },
    transformReply: undefined as unknown as () => string | null
  }
} as const

/**
 * Drops what the cache holds about keys this client just wrote, once Redis has answered the write.
 * Redis does not send this client invalidations of its own writes (NOLOOP); even without NOLOOP,
 * Redis 7 sends them after the write's reply, when the next read may already be served.
 */
export function forgetKeys (cache: BoundedClientSideCache | undefined, keys: readonly string[]): void {
  if (!cache || cache.size() === 0) return
  for (const key of keys) cache.invalidate(key)
}
