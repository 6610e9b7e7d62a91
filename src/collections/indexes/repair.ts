import type { FastifyBaseLogger } from 'fastify'
import type { IndexStorage } from './storage.js'

/** Collection generations an instance remembers having started a rebuild for, at most. */
const REMEMBERED = 10_000
/** After a rebuild failed, how long before a query may start it again. */
const RETRY_MS = 5_000

/**
 * Rebuilds the indexes queries meet without companion attributes (made by an earlier release), in the
 * background: once per generation per instance, never holding up nor failing the query that met it. Several
 * instances may start at once: the declaration is atomic, and every one but the first finds it declared.
 */
export function createIndexRepair (storage: IndexStorage, log: FastifyBaseLogger) {
  /** When a rebuild of each collection generation may start again (Infinity once done). */
  const startable = new Map<string, number>()
  const running = new Set<Promise<void>>()

  return {
    /** Starts the rebuild of a collection's index whose active generation lacks the companion attributes. */
    outdated (collection: string, generation: string): void {
      const key = JSON.stringify([collection, generation])
      if ((startable.get(key) ?? 0) > Date.now()) return
      if (startable.size >= REMEMBERED) startable.clear()
      startable.set(key, Infinity)
      const rebuild = storage.rebuild(collection).then(({ rebuilt }) => {
        if (rebuilt) log.info({ collection }, 'rebuilding an index made without companion attributes')
      }, (error: unknown) => {
        startable.set(key, Date.now() + RETRY_MS)
        log.warn({ err: error, collection }, 'could not rebuild an index made without companion attributes')
      }).finally(() => running.delete(rebuild))
      running.add(rebuild)
    },

    /** Waits for the rebuilds under way to be declared (their indexes build on in Redis). */
    async settled (): Promise<void> {
      await Promise.all(running)
    }
  }
}

export type IndexRepair = ReturnType<typeof createIndexRepair>
