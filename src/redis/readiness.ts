import { withDeadline } from './deadline.js'
import type { FunctionLibrary } from './lua-script.js'
import type { Redis } from './redis.js'

/** What a readiness check found: what keeps the service from serving, and whether Redis has the Search module. */
export interface Readiness {
  unready: Unready[]
  /** Whether FT.SEARCH is there: without it documents are served, indexes and queries are 501. */
  search: boolean
}

/** One thing that keeps the service from serving, and why. */
export interface Unready {
  check: 'redis' | 'json-module' | 'scripts'
  detail: string
}

function messageOf (error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Whether Redis can serve the service, in one round trip of four small commands: PING, `COMMAND INFO
 * JSON.GET` (null without RedisJSON), `COMMAND INFO FT.SEARCH` (null without the Search module, which only
 * indexes and queries need) and `FUNCTION LIST` of the service's function library. A library
 * Redis does not hold (a new Redis, FUNCTION FLUSH) is loaded then, as the next call would have done;
 * one that does not load is not ready. Each step is bounded by timeoutMs. Concurrent checks share the
 * one in progress, so probes cannot pile work on Redis.
 */
export function readinessCheck (client: Redis, timeoutMs: number, library: () => FunctionLibrary): () => Promise<Readiness> {
  async function check (): Promise<Readiness> {
    const expected = library()
    const [pong, module, listed, search] = await Promise.allSettled([
      withDeadline(client.ping(), timeoutMs),
      withDeadline(client.send<unknown[]>(undefined, ['COMMAND', 'INFO', 'JSON.GET']), timeoutMs),
      withDeadline(client.send<unknown[]>(undefined, ['FUNCTION', 'LIST', 'LIBRARYNAME', expected.name]), timeoutMs),
      withDeadline(client.send<unknown[]>(undefined, ['COMMAND', 'INFO', 'FT.SEARCH']), timeoutMs)
    ])
    const hasSearch = search.status === 'fulfilled' && Boolean(search.value[0])
    if (pong.status === 'rejected') return { unready: [{ check: 'redis', detail: messageOf(pong.reason) }], search: hasSearch }
    const unready: Unready[] = []
    if (module.status === 'rejected') unready.push({ check: 'json-module', detail: messageOf(module.reason) })
    else if (!module.value[0]) unready.push({ check: 'json-module', detail: 'Redis has no JSON module (RedisJSON)' })
    if (listed.status === 'rejected') {
      unready.push({ check: 'scripts', detail: messageOf(listed.reason) })
    } else if (listed.value.length === 0) {
      try {
        await withDeadline(expected.load(client), timeoutMs)
      } catch (error) {
        unready.push({ check: 'scripts', detail: `the service's function library ${expected.name} did not load (${messageOf(error)})` })
      }
    }
    return { unready, search: hasSearch }
  }

  let running: Promise<Readiness> | undefined
  return () => running ??= check().finally(() => { running = undefined })
}
