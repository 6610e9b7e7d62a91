import { PreconditionFailedError } from '../errors.js'
import { redisCall } from '../redis/deadline.js'
import { LuaScript } from '../redis/lua-script.js'
import { number, protocol, rest, text } from '../redis/script-protocol.js'
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

/**
 * Mirrors of consecutive slots one call updates while a schema change reaches every slot; a run that turns
 * out to span two nodes is split in halves until each half is on one node.
 */
const MIRROR_RUN = 1024

/** Redis' answer to a script that reached a key of another node. */
const NOT_LOCAL = /non local key/

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

/** A schema script's status, and the revision or generation it wrote. */
export interface SchemaChange {
  status: 'ok' | 'created' | 'notfound' | 'precondition'
  revision?: string
}

const schemaChange = (raw: unknown): SchemaChange => {
  const [status, revision] = raw as [SchemaChange['status'], unknown]
  return typeof revision === 'string' ? { status, revision } : { status }
}

/** The keys of a schema change: the collection's schema hash and the set of collections. */
const SCHEMA_KEYS = ['schemaKey', 'collections'] as const

/** Registers a schema; answers its new revision. */
export const putSchemaScript = new LuaScript('put-schema', protocol({
  keys: SCHEMA_KEYS,
  args: { collection: text, schema: text, ifMatch: text, ifNoneMatch: text },
  reply: schemaChange
}), conditionsLua + `
local current = redis.call('HGET', schemaKey, 'revision')
if not holds(current, ifMatch, ifNoneMatch) then return { 'precondition' } end
local revision = nextGeneration(schemaKey)
redis.call('HSET', schemaKey, 'schema', schema, 'revision', revision, 'generation', revision)
redis.call('SADD', collections, collection)
return { current and 'ok' or 'created', revision }
`)

/** Removes a schema, leaving its generation; answers the new generation. */
export const deleteSchemaScript = new LuaScript('delete-schema', protocol({
  keys: SCHEMA_KEYS,
  args: { collection: text, ifMatch: text, ifNoneMatch: text },
  reply: schemaChange
}), conditionsLua + `
local current = redis.call('HGET', schemaKey, 'revision')
if not current then return { 'notfound' } end
if not holds(current, ifMatch, ifNoneMatch) then return { 'precondition' } end
local generation = nextGeneration(schemaKey)
redis.call('HDEL', schemaKey, 'schema', 'revision')
redis.call('HSET', schemaKey, 'generation', generation)
redis.call('SREM', collections, collection)
return { 'ok', generation }
`)

/**
 * Slots' mirrors given pairs of collection and `<generation>:<revision>`, each set unless the mirror holds a
 * newer generation: the mirror routing the call, then `others` more mirrors named in the arguments, all of
 * the node that runs it (of other slots: the call declares one key, for its routing), then the pairs.
 */
export const mirrorScript = new LuaScript('mirror-schemas', protocol({
  keys: ['mirror'], args: { others: number, othersThenPairs: rest }, reply: () => undefined
}), `
local pairsFrom = othersThenPairs + others
local function update(key)
  for i = pairsFrom, #ARGV, 2 do
    local held = redis.call('HGET', key, ARGV[i])
    if not held or tonumber(string.match(held, '^%d+')) < tonumber(string.match(ARGV[i + 1], '^%d+')) then
      redis.call('HSET', key, ARGV[i], ARGV[i + 1])
    end
  end
end
update(mirror)
for i = othersThenPairs, pairsFrom - 1 do update(ARGV[i]) end
return 1
`, { crossSlot: true })

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

  /** Sets the mirrors of a run of consecutive slots, in one call when they are on one node. */
  async function mirrorRun (run: readonly string[], pairs: readonly string[]): Promise<void> {
    try {
      await mirrorScript.run(writer, { mirror: run[0]! }, { others: run.length - 1, othersThenPairs: [...run.slice(1), ...pairs] })
    } catch (error) {
      // Mirrors only move forward: what the failed call set before it stopped is set again, harmlessly.
      if (run.length === 1 || !(error instanceof Error) || !NOT_LOCAL.test(error.message)) throw error
      const half = Math.ceil(run.length / 2)
      await Promise.all([mirrorRun(run.slice(0, half), pairs), mirrorRun(run.slice(half), pairs)])
    }
  }

  /** Sets every mirror: a few calls per node, all at once. */
  async function mirror (pairs: string[]): Promise<void> {
    const runs: Array<Promise<void>> = []
    for (let from = 0; from < mirrors.length; from += MIRROR_RUN) runs.push(mirrorRun(mirrors.slice(from, from + MIRROR_RUN), pairs))
    await Promise.all(runs)
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
      const { status, revision } = await bounded(putSchemaScript.run(writer, { schemaKey: keyOf(collection), collections: collectionsKey },
        { collection, schema: text, ifMatch: conditions.ifMatch, ifNoneMatch: conditions.ifNoneMatch }))
      if (status === 'precondition') throw preconditionFailed(collection)
      await bounded(mirror([collection, mirroredState({ stored: { text, revision: revision! }, generation: revision! })]))
      return { created: status === 'created', revision: revision! }
    },

    /** Removes a collection's schema; false when it had none. Answers once every slot's mirror knows. */
    async remove (collection: string, conditions: SchemaConditions): Promise<boolean> {
      const { status, revision: generation } = await bounded(deleteSchemaScript.run(writer,
        { schemaKey: keyOf(collection), collections: collectionsKey }, { collection, ifMatch: conditions.ifMatch, ifNoneMatch: conditions.ifNoneMatch }))
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
