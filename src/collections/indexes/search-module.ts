import { NoSearchError } from '../../errors.js'
import { redisCall } from '../../redis/deadline.js'
import type { Redis } from '../../redis/redis.js'

/** How long an instance trusts what it last learnt of the Search module. */
const REMEMBERED_MS = 1000

/**
 * Whether Redis has the Search module (RediSearch), which indexes and queries need and documents do not:
 * `COMMAND INFO FT.SEARCH` is null without it. The answer is remembered for a second, so that a module
 * loaded (or a Redis swapped) is seen soon without a call per request.
 */
export function createSearchModuleCheck (redis: Redis, timeoutMs: number) {
  let known: { present: boolean, at: number } | undefined
  let asking: Promise<boolean> | undefined

  async function ask (): Promise<boolean> {
    const [info] = await redisCall(redis.send<unknown[]>(undefined, ['COMMAND', 'INFO', 'FT.SEARCH']), timeoutMs)
    known = { present: Boolean(info), at: Date.now() }
    return known.present
  }

  return {
    /** Refuses (501 DOCS_ERR_NO_SEARCH) when Redis has no Search module. */
    async require (): Promise<void> {
      const present = known !== undefined && Date.now() - known.at < REMEMBERED_MS
        ? known.present
        : await (asking ??= ask().finally(() => { asking = undefined }))
      if (!present) throw new NoSearchError('This Redis has no Search module (RediSearch): collections cannot have indexes or answer queries here; documents are served as always')
    }
  }
}
