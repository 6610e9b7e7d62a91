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
