import { RateLimiter } from '../access/rate-limit.js'
import type { CommandSender } from '../redis/redis.js'

/** Why a stream starts afresh rather than catch up. */
export const TOO_FAR = 'catching up would read more events than the credentials may per minute (STREAM_CATCH_UP_READS)'

/** The budget's window, fixed and aligned to the clock like the rate limits'. */
export const CATCH_UP_WINDOW_MS = 60_000

/** Asks whether a stream may make one more read to catch up, charging its credentials when it may. */
export type CatchUpAdmission = () => Promise<boolean>

/**
 * The reads a credential's streams (a client address's, without credentials) may make per minute to catch
 * up, on every instance together, beyond the first read of each catch-up: a stream resuming a little behind
 * costs nothing, one resuming far behind a busy feed pays a read per page. Past it, the stream says `reset`
 * and goes on from now: reloading is then cheaper for everyone than replaying.
 */
export function catchUpBudget (client: CommandSender, { keyPrefix, timeoutMs, readsPerMinute }: { keyPrefix: string, timeoutMs: number, readsPerMinute: number }) {
  const limiter = new RateLimiter({ name: 'default', count: readsPerMinute, windowMs: CATCH_UP_WINDOW_MS, windowSeconds: CATCH_UP_WINDOW_MS / 1000 },
    client, { keyPrefix: keyPrefix + '\u001fcatch-up\u001f', timeoutMs })
  return (identity: string): CatchUpAdmission => async () => (await limiter.admit(identity)).allowed
}
