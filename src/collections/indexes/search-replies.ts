import { IndexMissingError, RedisUnavailableError } from '../../errors.js'

/*
 * What RediSearch's replies and errors say about an index, read the same way by the index's storage and
 * its searches.
 */

/** The problem of a collection whose index its record names is missing on some master. */
export function indexMissing (collection: string) {
  return new IndexMissingError(`The index of collection "${collection}" is missing from Redis (its declaration was cut short, or it was ` +
    'dropped behind the service): PUT its definition again to rebuild it')
}

/** RediSearch's answer for an index that does not exist (dropped by a newer generation, or never made). */
export function isUnknownIndex (error: unknown): boolean {
  return error instanceof Error && /unknown index name|no such index/i.test(error.message)
}

/** The members of a RESP3 map reply (an object or a Map), or of a RESP2 flat list of names and values. */
export function fieldsOfReply (reply: unknown): Map<string, unknown> {
  if (reply instanceof Map) return new Map([...reply].map(([name, value]) => [String(name), value]))
  if (Array.isArray(reply)) {
    const fields = new Map<string, unknown>()
    for (let index = 0; index + 1 < reply.length; index += 2) fields.set(String(reply[index]), reply[index + 1])
    return fields
  }
  if (typeof reply === 'object' && reply !== null) return new Map(Object.entries(reply))
  throw new RedisUnavailableError('RediSearch answered in an unexpected form')
}
