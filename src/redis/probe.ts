import { createClient } from 'redis'
import type { RedisConnection } from './connection.js'

/**
 * What the probe asks of Redis: a script that does nothing. Not PING: CLIENT PAUSE WRITE holds
 * scripts, as it holds the service's writes, but lets PING through.
 */
const NO_OP_SCRIPT = 'return 1'

/**
 * Whether Redis serves a new connection within timeoutMs: connects, runs a no-op script, disconnects.
 * It does not when Redis is down, paused, busy with a long script or stopped; it does when only
 * another connection of ours is at fault.
 */
export async function redisAnswers (connection: RedisConnection, timeoutMs: number): Promise<boolean> {
  const probe = createClient({
    ...('url' in connection ? { url: connection.url } : {}),
    // RESP2 without client info: no handshake (but AUTH, when the URL has credentials) before the script.
    RESP: 2,
    disableClientInfo: true,
    disableOfflineQueue: true,
    socket: {
      ...('socketPath' in connection ? { path: connection.socketPath } : {}),
      connectTimeout: timeoutMs,
      reconnectStrategy: false
    }
  })
  probe.on('error', () => {})
  // A probe in flight never keeps the process alive.
  probe.unref()
  try {
    return await answersWithin(probe.connect().then(() => probe.sendCommand(['EVAL', NO_OP_SCRIPT, '0'])), timeoutMs)
  } finally {
    probe.destroy()
    // node-redis does not hold a socket still connecting: should it connect after all, close it then.
    probe.on('ready', () => probe.destroy())
  }
}

/** Whether reply settles with a value within timeoutMs; a reply that never comes is let go. */
export function answersWithin (reply: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => { timer = setTimeout(resolve, timeoutMs, false).unref() })
  return Promise.race([reply.then(() => true, () => false), late]).finally(() => clearTimeout(timer))
}
