import type { FastifyInstance } from 'fastify'
import { logOf } from '../../src/documents/store/context.js'
import type { RedisClient } from '../../src/redis/plugin.js'

/**
 * Appends to the event log of the document at key an entry as releases before the changes kept beside the
 * log wrote one for a write whose changes were too long: no changes, `o` '1'. It names the log's entry
 * before it, as every entry does, and the version given. Answers its id.
 */
export async function appendLegacyEntry (app: FastifyInstance & { keyPrefix: string }, redis: RedisClient, key: string, version: string): Promise<string> {
  const log = logOf(app, key)
  const [last] = await redis.sendCommand<Array<[string, string[]]>>(['XREVRANGE', log, '+', '-', 'COUNT', '1'])
  return await redis.sendCommand<string>(['XADD', log, '*', 'prev', last?.[0] ?? '0-0', 'k', app.keyPrefix + key, 'p', '0-0', 'v', version, 'o', '1'])
}

/** The version after the one an ETag names. */
export const nextVersion = (etag: string) => String(BigInt(JSON.parse(etag) as string) + 1n)
