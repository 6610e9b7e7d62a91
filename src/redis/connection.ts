/** How to reach Redis: a redis:// URL, the unix socket of a local server, or the nodes of a Redis Cluster (redis:// URLs). */
export type RedisConnection = { url: string } | { socketPath: string } | { clusterNodes: string[] }

/** A printable form, for logs and error messages. */
export function describeConnection (connection: RedisConnection): string {
  if ('clusterNodes' in connection) return `cluster ${connection.clusterNodes.map(withoutCredentials).join(',')}`
  return 'url' in connection ? withoutCredentials(connection.url) : `unix:${connection.socketPath}`
}

function withoutCredentials (url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@')
}

/**
 * REDIS_CLUSTER_NODES as URLs: `host:port` or `redis[s]://[user:password@]host:port`, comma-separated.
 * Undefined when any entry is neither.
 */
export function clusterNodesOf (list: string): string[] | undefined {
  const nodes = list.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
  const urls = nodes.map((node) => /^rediss?:\/\//.test(node) ? node : `redis://${node}`)
  const valid = urls.every((url) => {
    try {
      const parsed = new URL(url)
      return parsed.hostname !== '' && parsed.port !== ''
    } catch {
      return false
    }
  })
  return valid && urls.length > 0 ? urls : undefined
}

/** How long a client waits before trying to connect again: doubling from 50 ms, at most a second. */
export function reconnectDelay (retries: number): number {
  return Math.min(50 * 2 ** retries, 1000)
}

/**
 * What every client of the service's has in common: RESP3, failing fast instead of queueing while Redis
 * is unreachable (the request ends in 503), no node-redis timeout per command (the store's deadline
 * bounds every call), and this connection (for a cluster, what every node's connection takes).
 */
export function clientOptions (connection: RedisConnection, connectTimeoutMs: number,
  reconnectStrategy: (retries: number, cause: Error) => number | Error = reconnectDelay) {
  return {
    ...('url' in connection ? { url: connection.url } : {}),
    ...('clusterNodes' in connection ? credentialsOf(connection.clusterNodes[0]!) : {}),
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

/**
 * What every cluster client of the service's has in common: the nodes it starts from, clientOptions for
 * every node's connection, and a lost master looked for again a second after its connection dropped, not five.
 */
export function clusterOptions (connection: { clusterNodes: string[] }, connectTimeoutMs: number) {
  const { RESP, commandOptions, ...defaults } = clientOptions(connection, connectTimeoutMs)
  return {
    rootNodes: connection.clusterNodes.map((url) => ({ url })),
    defaults,
    RESP,
    commandOptions,
    topologyRefreshOnReconnectionAttemptStrategy: 1000
  }
}

/** The user and password of a node's URL, which the connections to every node of its cluster take. */
function credentialsOf (url: string): { username?: string, password?: string } {
  const { username, password } = new URL(url)
  return {
    ...(username ? { username: decodeURIComponent(username) } : {}),
    ...(password ? { password: decodeURIComponent(password) } : {})
  }
}
