/** How to reach Redis: a redis:// URL, or the unix socket of a local server. */
export type RedisConnection = { url: string } | { socketPath: string }

/** A printable form, for logs and error messages. */
export function describeConnection (connection: RedisConnection): string {
  return 'url' in connection ? connection.url.replace(/\/\/[^@/]*@/, '//***@') : `unix:${connection.socketPath}`
}
