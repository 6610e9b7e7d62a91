import { PreconditionFailedError } from '../errors.js'
import { redisCall } from '../redis/deadline.js'
import { LuaScript } from '../redis/lua-script.js'
import type { RedisClient } from '../redis/plugin.js'
import type { CommandSender } from '../redis/replicated-writes.js'

export interface SchemaStorageOptions {
  keyPrefix: string
  timeoutMs: number
}

/** A registered schema: its text as sent and its revision (which grows with Redis' clock). */
export interface StoredSchema {
  text: string
  revision: string
}

export interface SchemaConditions {
  ifMatch: string
  ifNoneMatch: string
}

/*
 * A collection's schema is a hash { schema, revision } under a key holding control characters, which
 * no document key can, and the set of collection names that have one sits beside it.
 */
const SCHEMA_KEY_INFIX = '\u001fschema\u001f'
const COLLECTIONS_SUFFIX = '\u001fschemas'

const conditionsLua = `
local function listed(list, tag) return string.find(',' .. list .. ',', ',' .. tag .. ',', 1, true) ~= nil end
local function holds(current, ifMatch, ifNoneMatch)
  if ifMatch ~= '' and not (current and (ifMatch == '*' or listed(ifMatch, current))) then return false end
  if ifNoneMatch ~= '' and current and (ifNoneMatch == '*' or listed(ifNoneMatch, current)) then return false end
  return true
end
`

/** KEYS: schema hash, collection set. ARGV: collection, schema text, If-Match, If-None-Match. */
const putSchemaScript = new LuaScript('put-schema', conditionsLua + `
local current = redis.call('HGET', KEYS[1], 'revision')
if not holds(current, ARGV[3], ARGV[4]) then return { 'precondition' } end
local t = redis.call('TIME')
local revision = string.format('%.0f', math.max((tonumber(current) or 0) + 1, tonumber(t[1]) * 1000000 + tonumber(t[2])))
redis.call('HSET', KEYS[1], 'schema', ARGV[2], 'revision', revision)
redis.call('SADD', KEYS[2], ARGV[1])
return { current and 'ok' or 'created', revision }
`)

/** KEYS: schema hash, collection set. ARGV: collection, If-Match, If-None-Match. */
const deleteSchemaScript = new LuaScript('delete-schema', conditionsLua + `
local current = redis.call('HGET', KEYS[1], 'revision')
if not current then return { 'notfound' } end
if not holds(current, ARGV[2], ARGV[3]) then return { 'precondition' } end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return { 'ok' }
`)

/** Where collection schemas live in Redis, shared by every instance of the service. */
/** client reads; writer runs the scripts that write (see WRITE_REPLICAS). */
export function createSchemaStorage (client: RedisClient, writer: CommandSender, { keyPrefix, timeoutMs }: SchemaStorageOptions) {
  const collectionsKey = keyPrefix + COLLECTIONS_SUFFIX
  const bounded = <T>(work: Promise<T>) => redisCall(work, timeoutMs)

  return {
    /** The Redis key of a collection's schema; writes check its revision inside their scripts. */
    keyOf (collection: string): string {
      return keyPrefix + SCHEMA_KEY_INFIX + collection
    },

    async get (collection: string): Promise<StoredSchema | undefined> {
      const [text, revision] = await bounded(client.sendCommand<Array<string | null>>(
        ['HMGET', this.keyOf(collection), 'schema', 'revision']))
      return text && revision ? { text, revision } : undefined
    },

    async revisionOf (collection: string): Promise<string | undefined> {
      return await bounded(client.sendCommand<string | null>(['HGET', this.keyOf(collection), 'revision'])) ?? undefined
    },

    /** Every collection with a schema and its revision, by name. */
    async list (): Promise<Array<{ collection: string, revision: string }>> {
      const names = (await bounded(client.sendCommand<string[]>(['SMEMBERS', collectionsKey]))).sort()
      const revisions = await bounded(Promise.all(names.map((name) =>
        client.sendCommand<string | null>(['HGET', this.keyOf(name), 'revision']))))
      return names.flatMap((collection, index) => {
        const revision = revisions[index]
        return revision ? [{ collection, revision }] : []
      })
    },

    async put (collection: string, text: string, conditions: SchemaConditions): Promise<{ created: boolean, revision: string }> {
      const [status, revision] = await bounded(putSchemaScript.run<[string, string]>(writer,
        [this.keyOf(collection), collectionsKey], [collection, text, conditions.ifMatch, conditions.ifNoneMatch]))
      if (status === 'precondition') throw preconditionFailed(collection)
      return { created: status === 'created', revision }
    },

    /** Removes a collection's schema; false when it had none. */
    async remove (collection: string, conditions: SchemaConditions): Promise<boolean> {
      const [status] = await bounded(deleteSchemaScript.run<[string]>(writer,
        [this.keyOf(collection), collectionsKey], [collection, conditions.ifMatch, conditions.ifNoneMatch]))
      if (status === 'precondition') throw preconditionFailed(collection)
      return status === 'ok'
    }
  }
}

export type SchemaStorage = ReturnType<typeof createSchemaStorage>

function preconditionFailed (collection: string) {
  return new PreconditionFailedError(`The precondition does not hold for the schema of collection "${collection}"`)
}
