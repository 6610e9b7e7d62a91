import { ErrorReply } from 'redis'
import { RedisUnavailableError } from '../errors.js'

/**
 * Bounds a Redis interaction in time. node-redis' own command timeout stops counting once a command is
 * written, so a Redis that stalls (CLIENT PAUSE, a long script, a saturated host) needs this too. The
 * command itself runs on; its late answer is dropped.
 */
export function withDeadline<T> (work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError(`no answer within ${timeoutMs} ms`)), timeoutMs)
  })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}

/**
 * A Redis call bounded by withDeadline, where anything but Redis' own error reply (a lost connection,
 * a client that gave up) becomes RedisUnavailableError, the 503. Error replies are left to the caller.
 */
export function redisCall<T> (work: Promise<T>, timeoutMs: number): Promise<T> {
  return withDeadline(work, timeoutMs).catch((error: unknown) => {
    if (error instanceof RedisUnavailableError || error instanceof ErrorReply) throw error
    throw new RedisUnavailableError((error as Error).message ?? String(error))
  })
}
