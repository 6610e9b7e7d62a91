import { PreconditionFailedError } from '../errors.js'
import { redisCall } from '../redis/deadline.js'
import { LuaScript } from '../redis/lua-script.js'
import type { CommandSender } from '../redis/redis.js'
import { keyBeside, SLOTS, tagOfSlot } from '../redis/slots.js'

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
 * A collection's schema is a hash { schema, revision, generation } under a key holding control characters,
 * which no document key can, and the set of collection names that have one sits beside it, in the same
 * hash slot (their tag). Removing a schema leaves { generation }: generations only grow, whatever happens.
 *
 * Document writes cannot read that hash from their scripts on a Redis Cluster (it is in another slot), so
 * every slot holds a mirror: a hash from collection to `<generation>:<revision>` (revision '' when the
 * collection has no schema), at `<prefix>{<tag of the slot>}\x1fschema-revisions`. A single Redis needs
 * one mirror, `<prefix>\x1fschema-revisions`. PUT and DELETE /schemas update every mirror before they answer; a mirror only ever moves to a newer
 * generation. A write's script compares the generation and revision it was validated with against its
 * slot's mirror: older is refused ('schemachanged', and the write is validated again); newer moves the
 * mirror on, since the writer read it from the schema itself.
 */
const SCHEMA_KEY_INFIX = '\u001fschema\u001f'
const COLLECTIONS_SUFFIX = '\u001fschemas'
export const MIRROR_SUFFIX = '\u001fschema-revisions'

/** Mirror updates in flight at once while a schema change reaches every slot. */
const MIRROR_BATCH = 1024

const conditionsLua = `
local function listed(list, tag) return string.find(',' .. list .. ',', ',' .. tag .. ',', 1, true) ~= nil end
local function holds(current, ifMatch, ifNoneMatch)
  if ifMatch ~= '' and not (current and (ifMatch == '*' or listed(ifMatch, current))) then return false end
  if ifNoneMatch ~= '' and current and (ifNoneMatch == '*' or listed(ifNoneMatch, current)) then return false end
  return true
end
-- A generation above every earlier one of the schema, from Redis' clock.
local function nextGeneration(key)
  local t = redis.call('TIME')
  local last = tonumber(redis.call('HGET', key, 'generation') or redis.call('HGET', key, 'revision') or '0')
  return string.format('%.0f', math.max(last + 1, tonumber(t[1]) * 1000000 + tonumber(t[2])))
end
`

/** KEYS: schema hash, collection set. ARGV: collection, schema text, If-Match, If-None-Match. */
const putSchemaScript = new LuaScript('put-schema', conditionsLua + `
local current = redis.call('HGET', KEYS[1], 'revision')
if not holds(current, ARGV[3], ARGV[4]) then return { 'precondition' } end
local revision = nextGeneration(KEYS[1])
redis.call('HSET', KEYS[1], 'schema', ARGV[2], 'revision', revision, 'generation', revision)
redis.call('SADD', KEYS[2], ARGV[1])
return { current and 'ok' or 'created', revision }
`)

/** KEYS: schema hash, collection set. ARGV: collection, If-Match, If-None-Match. Leaves the generation. */
const deleteSchemaScript = new LuaScript('delete-schema', conditionsLua + `
local current = redis.call('HGET', KEYS[1], 'revision')
if not current then return { 'notfound' } end
if not holds(current, ARGV[2], ARGV[3]) then return { 'precondition' } end
local generation = nextGeneration(KEYS[1])
redis.call('HDEL', KEYS[1], 'schema', 'revision')
redis.call('HSET', KEYS[1], 'generation', generation)
redis.call('SREM', KEYS[2], ARGV[1])
return { 'ok', generation }
`)

/** KEYS: a slot's mirror. ARGV: pairs of collection and `<generation>:<revision>`, each set unless the mirror holds a newer generation. */
const mirrorScript = new LuaScript('mirror-schemas', `
for i = 1, #ARGV, 2 do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if not held or tonumber(string.match(held, '^%d+')) < tonumber(string.match(ARGV[i + 1], '^%d+')) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return 1
`)

/** What a collection's schema key holds: the schema, when it has one, and its generation (0 when it never had one). */
export interface SchemaState {
  stored?: StoredSchema
  generation: string
}

/** What a slot's mirror holds for a collection in this state. */
export function mirroredState ({ stored, generation }: SchemaState): string {
  return `${generation}:${stored?.revision ?? ''}`
}

/**
 * Where collection schemas live in Redis, shared by every instance of the service. client reads; writer
 * runs the scripts that write (see WRITE_REPLICAS).
 */
export function createSchemaStorage (client: CommandSender, writer: CommandSender,
  { keyPrefix, timeoutMs, slotMirrors }: SchemaStorageOptions & { slotMirrors: boolean }) {
  const collectionsKey = keyPrefix + COLLECTIONS_SUFFIX
  const bounded = <T>(work: Promise<T>) => redisCall(work, timeoutMs)
  const keyOf = (collection: string) => keyBeside(collectionsKey, keyPrefix, SCHEMA_KEY_INFIX + collection)
  const mirrors = slotMirrors
    ? Array.from({ length: SLOTS }, (_, slot) => `${keyPrefix}{${tagOfSlot(slot)}}${MIRROR_SUFFIX}`)
    : [keyPrefix + MIRROR_SUFFIX]

  /** Sets every mirror, MIRROR_BATCH at a time. */
  async function mirror (pairs: string[]): Promise<void> {
    for (let from = 0; from < mirrors.length; from += MIRROR_BATCH) {
      await Promise.all(mirrors.slice(from, from + MIRROR_BATCH).map((key) => mirrorScript.run(writer, [key], pairs)))
    }
  }

  return {
    keyOf,

    /** Every mirror's key. */
    mirrors,

    /** Every collection's mirror in every slot made at least as new as its schema key; for the layout's upgrade. */
    mirror,

    async state (collection: string): Promise<SchemaState> {
      const [text, revision, generation] = await bounded(client.send<Array<string | null>>(collectionsKey,
        ['HMGET', keyOf(collection), 'schema', 'revision', 'generation']))
      return { ...(text && revision ? { stored: { text, revision } } : {}), generation: generation ?? revision ?? '0' }
    },

    async get (collection: string): Promise<StoredSchema | undefined> {
      return (await this.state(collection)).stored
    },

    /** The names of the collections with a schema. */
    async names (): Promise<string[]> {
      return await bounded(client.send<string[]>(collectionsKey, ['SMEMBERS', collectionsKey]))
    },

    /** Every collection with a schema and its revision, by name. */
    async list (): Promise<Array<{ collection: string, revision: string }>> {
      const names = (await this.names()).sort()
      const revisions = await bounded(Promise.all(names.map((name) =>
        client.send<string | null>(collectionsKey, ['HGET', keyOf(name), 'revision']))))
      return names.flatMap((collection, index) => {
        const revision = revisions[index]
        return revision ? [{ collection, revision }] : []
      })
    },

    /** Registers a schema; answers once every slot's mirror has its revision. */
    async put (collection: string, text: string, conditions: SchemaConditions): Promise<{ created: boolean, revision: string }> {
      const [status, revision] = await bounded(putSchemaScript.run<[string, string]>(writer,
        [keyOf(collection), collectionsKey], [collection, text, conditions.ifMatch, conditions.ifNoneMatch]))
      if (status === 'precondition') throw preconditionFailed(collection)
      await bounded(mirror([collection, mirroredState({ stored: { text, revision }, generation: revision })]))
      return { created: status === 'created', revision }
    },

    /** Removes a collection's schema; false when it had none. Answers once every slot's mirror knows. */
    async remove (collection: string, conditions: SchemaConditions): Promise<boolean> {
      const [status, generation] = await bounded(deleteSchemaScript.run<[string, string?]>(writer,
        [keyOf(collection), collectionsKey], [collection, conditions.ifMatch, conditions.ifNoneMatch]))
      if (status === 'precondition') throw preconditionFailed(collection)
      if (status !== 'ok') return false
      await bounded(mirror([collection, mirroredState({ generation: generation! })]))
      return true
    }
  }
}

export type SchemaStorage = ReturnType<typeof createSchemaStorage>

function preconditionFailed (collection: string) {
  return new PreconditionFailedError(`The precondition does not hold for the schema of collection "${collection}"`)
}
