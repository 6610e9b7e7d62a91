import type { RedisConnection } from './connection.js'
import { onLateCalls } from './deadline.js'
import type { RedisClient } from './plugin.js'
import { answersWithin, redisAnswers } from './probe.js'

export interface ConnectionWatchOptions {
  connection: RedisConnection
  /** How long Redis may take to answer: the service's REDIS_TIMEOUT_MS. */
  timeoutMs: number
  /** Told once each time the connection is dropped, with the cause. */
  onReplace: (cause: string) => void
}

/** A new connection at most this often, so a connection that keeps breaking is not remade in a loop. */
export const REPLACEMENT_INTERVAL_MS = 5000
/** Checks (and their probe connections) at most this often, however short the timeout. */
const CHECK_INTERVAL_MS = 1000

export interface ConnectionWatch {
  /** The client met something that leaves its connection out of step for good (a reply it could not decode). */
  broken (cause: string): void
  stop (): void
}

/**
 * Keeps the client's connection usable whatever breaks it, without changing the client object every
 * module holds. A connection is broken when the client fails to decode a reply (node-redis then reads
 * the rest of that reply as new replies, and the call waiting for it never settles), or when calls
 * outlive their deadline, the connection leaves a PING unanswered, and a new connection gets an
 * answer in time: then the fault is this connection, not Redis. A Redis that is slow, paused or
 * stopped leaves the probe unanswered too, and the connection is kept.
 *
 * A broken connection is dropped at once: its pending calls fail (503, outcome unknown) and the
 * client-side cache is cleared, since invalidations may have been lost with it. The client then
 * connects again with its own settings (RESP3, tracking when the cache is on), at most once per
 * REPLACEMENT_INTERVAL_MS; until it is ready, calls fail at once as when Redis is down.
 */
export function watchConnection (client: RedisClient, { connection, timeoutMs, onReplace }: ConnectionWatchOptions): ConnectionWatch {
  let stopped = false
  let checking = false
  let lastCheckAt = -Infinity
  let replacing = false
  let lastReplacedAt = -Infinity
  let reconnectTimer: NodeJS.Timeout | undefined

  function replace (cause: string): void {
    if (stopped || replacing) return
    replacing = true
    const waitMs = Math.max(0, lastReplacedAt + REPLACEMENT_INTERVAL_MS - Date.now())
    onReplace(waitMs > 0 ? `${cause}; a new connection in ${waitMs} ms` : cause)
    client.destroy()
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined
      lastReplacedAt = Date.now()
      // The reconnect strategy retries until Redis answers; a rejection means the app closed meanwhile.
      client.connect().catch(() => {}).finally(() => { replacing = false })
    }, waitMs)
  }

  async function check (): Promise<void> {
    if (stopped || checking || replacing || !client.isReady || Date.now() - lastCheckAt < CHECK_INTERVAL_MS) return
    checking = true
    lastCheckAt = Date.now()
    const epoch = client.socketEpoch
    try {
      const ping = client.ping()
      const [connectionAnswers, redisAnswersOthers] = await Promise.all([
        answersWithin(ping, timeoutMs), redisAnswers(connection, timeoutMs)
      ])
      // Redis that has just come back (a pause ending) answers the probe and this connection's queue in the
      // same moment, and a starved event loop may see the one before the other: the PING gets as long
      // again before the connection is called broken. A broken one never answers, so this costs it little.
      if (!connectionAnswers && redisAnswersOthers && await answersWithin(ping, timeoutMs)) return
      // A connection node-redis itself dropped or replaced meanwhile is not ours to replace.
      if (!connectionAnswers && redisAnswersOthers && client.isReady && client.socketEpoch === epoch) {
        replace(`no reply on this connection within ${timeoutMs} ms, while Redis answers another`)
      }
    } finally {
      checking = false
    }
  }

  const stopListening = onLateCalls(() => { void check() })

  return {
    broken (cause) {
      replace(cause)
    },
    stop () {
      stopped = true
      stopListening()
      clearTimeout(reconnectTimer)
    }
  }
}
