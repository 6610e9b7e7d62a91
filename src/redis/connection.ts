/** How to reach Redis: a redis:// URL, or the unix socket of a local server. */
export type RedisConnection = { url: string } | { socketPath: string }

/** A printable form, for logs and error messages. */
export function describeConnection (connection: RedisConnection): string {
  return 'url' in connection ? connection.url.replace(/\/\/[^@/]*@/, '//***@') : `unix:${connection.socketPath}`
}

/** How long a client waits before trying to connect again: doubling from 50 ms, at most a second. */
export function reconnectDelay (retries: number): number {
  return Math.min(50 * 2 ** retries, 1000)
}

/**
 * What every client of the service's has in common: RESP3, failing fast instead of queueing while Redis
 * is unreachable (the request ends in 503), no node-redis timeout per command (the store's deadline
 * bounds every call), and this connection.
 */
export function clientOptions (connection: RedisConnection, connectTimeoutMs: number,
  reconnectStrategy: (retries: number, cause: Error) => number | Error = reconnectDelay) {
  return {
    ...('url' in connection ? { url: connection.url } : {}),
    RESP: 3 as const,
    disableOfflineQueue: true,
    commandOptions: { timeout: 0 },
    socket: {
      ...('socketPath' in connection ? { path: connection.socketPath } : {}),
      connectTimeout: connectTimeoutMs,
      reconnectStrategy
    }
  }
}
