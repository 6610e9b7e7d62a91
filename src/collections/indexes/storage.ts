import type { ErrorReply } from 'redis'
import { BadRequestError, IndexMissingError } from '../../errors.js'
import { redisCall } from '../../redis/deadline.js'
import type { CommandSender, MasterNode, Redis } from '../../redis/redis.js'
import { keyBeside, tagOfSlot } from '../../redis/slots.js'
import { deleteIndexScript, promoteIndexScript, putIndexScript, undoPutIndexScript } from './record-scripts.js'
import { fieldsOfReply, indexMissing, isUnknownIndex } from './search-replies.js'
import { canonicalDefinition, createArguments, indexFieldsOf, type IndexDefinition, type IndexField } from './definition.js'

/*
 * A collection's index is a hash beside the collection schemas' keys: `definition` (the latest, as JSON),
 * `generation` (grows with every change, never reset), `building` (the generation being built, if any),
 * `active` and `activeDefinition` (the generation queries use, once it was ready), `companions` (the latest
 * generation this release declared, with the companion attributes of its tag fields). Each generation is one
 * RediSearch index per master, named under KEY_PREFIX with the collection and the generation: a changed
 * definition builds a new generation beside the active one, which keeps answering until the new one is
 * ready everywhere; then `active` moves to it and the old one is dropped (a query that meets a dropped
 * index reads the hash again). FT.DROPINDEX never takes documents with it.
 *
 * Declaring is two steps, the record then FT.CREATE on every master. When a master refuses, the record is
 * undone and what was made dropped; when the steps were cut apart (a crash, a Redis lost meanwhile) or an
 * index was dropped behind the service, the record names a generation missing on some master: reads answer
 * DOCS_ERR_INDEX_MISSING, and a PUT of the same definition declares it again.
 *
 * A generation `companions` does not name was made without the companion attributes (by an earlier release,
 * or by one still running beside this one): its queries are not screened for them (see control-values.ts),
 * and `rebuild` declares its definition again, beside it.
 */
const INDEX_KEY_INFIX = '\u001findex\u001f'
const COLLECTIONS_SUFFIX = '\u001fschemas'

/** The generation queries use: its fields, and the index name on each master. */
export interface ActiveIndex {
  generation: string
  fields: IndexField[]
  /** Its RediSearch index on a master. */
  nameOn (master: MasterNode): string
  /** Whether it comes from this instance's memo rather than from Redis just now (see READY_MEMO_MS). */
  remembered: boolean
  /** Whether it was made with the companion attributes of its tag fields (see control-values.ts). */
  companions: boolean
}

export interface IndexState {
  definition: IndexDefinition
  state: 'building' | 'ready'
  /** Of the generation being built (1 when ready): the least any master reports. */
  progress: number
  /** Documents the index holds, on every master. */
  documents: number
  /** Documents RediSearch could not index (a value of another type than the field's), on every master. */
  failures: number
}

interface Record {
  definition?: string
  active?: string
  activeDefinition?: string
  building?: string
  declaredAt?: string
  companions?: string
}

export interface IndexStorageOptions {
  keyPrefix: string
  collectionSeparator: string
  timeoutMs: number
}

/** Least time between two checks of a building index's progress by the queries of one instance. */
const READY_CHECK_MS = 200

/**
 * How long an instance's queries use a ready index (none building) without reading its record again. A
 * stale one is safe: a query that meets its dropped generation reads the record again (isUnknownIndex), and
 * generations never repeat; a change of definition is noticed within this time, and takes over once ready.
 */
const READY_MEMO_MS = 1000

/** A declaring PUT gives up within about 3 Redis timeouts (its FT.CREATEs, its undo, its drops). */
const MAKING_TIMEOUTS = 4

/** Where collection indexes are declared (Redis) and how their RediSearch indexes are made, checked and dropped. */
export function createIndexStorage (redis: Redis, writer: CommandSender, { keyPrefix, collectionSeparator, timeoutMs }: IndexStorageOptions) {
  const collectionsKey = keyPrefix + COLLECTIONS_SUFFIX
  const keyOf = (collection: string) => keyBeside(collectionsKey, keyPrefix, INDEX_KEY_INFIX + collection)
  const bounded = <T>(work: Promise<T>) => redisCall(work, timeoutMs)
  const fieldsOf = new Map<string, IndexField[]>()
  /** When each collection's building generation was last checked, and whether a master lacked it. */
  const checks = new Map<string, { at: number, generation: string, missing: boolean }>()
  const ready = new Map<string, { index: ActiveIndex, until: number }>()

  /** The index names of a collection on a master, up to the generation: each master's own hash slot holds them. */
  function namePrefix (collection: string, master: MasterNode): string {
    return redis.isCluster ? `${keyPrefix}{${tagOfSlot(Number(master.id))}}${INDEX_KEY_INFIX}${collection}\u001f` : `${keyPrefix}${INDEX_KEY_INFIX}${collection}\u001f`
  }

  function parsedFields (text: string): IndexField[] {
    let fields = fieldsOf.get(text)
    if (fields === undefined) {
      fields = indexFieldsOf(JSON.parse(text) as IndexDefinition)
      if (fieldsOf.size > 1000) fieldsOf.clear()
      fieldsOf.set(text, fields)
    }
    return fields
  }

  async function read (collection: string): Promise<Record> {
    const [definition, active, activeDefinition, building, declaredAt, companions] = await bounded(redis.send<Array<string | null>>(collectionsKey,
      ['HMGET', keyOf(collection), 'definition', 'active', 'activeDefinition', 'building', 'declaredAt', 'companions']))
    return {
      ...(definition ? { definition } : {}),
      ...(active ? { active } : {}),
      ...(activeDefinition ? { activeDefinition } : {}),
      ...(building ? { building } : {}),
      ...(declaredAt ? { declaredAt } : {}),
      ...(companions ? { companions } : {})
    }
  }

  /**
   * Whether the record's building generation, missing on some master, may still be in the making: declared
   * less than MAKING_TIMEOUTS Redis timeouts ago (by Redis' clock), when its declaring PUT has not given up yet.
   */
  async function inTheMaking (record: Record): Promise<boolean> {
    if (record.building === undefined || record.declaredAt === undefined) return false
    const [seconds, microseconds] = await bounded(redis.send<string[]>(collectionsKey, ['TIME']))
    return Number(seconds) * 1000 + Math.floor(Number(microseconds) / 1000) - Number(record.declaredAt) < MAKING_TIMEOUTS * timeoutMs
  }

  async function onEveryMaster<T> (work: (master: MasterNode) => Promise<T>): Promise<T[]> {
    return await bounded(redis.masters().then((masters) => Promise.all(masters.map(work))))
  }

  async function drop (collection: string, generation: string): Promise<void> {
    await onEveryMaster((master) => master.sender.send(undefined, ['FT.DROPINDEX', namePrefix(collection, master) + generation])
      .catch((error: unknown) => { if (!isUnknownIndex(error)) throw error }))
  }

  /** Drops every generation of the collection's indexes below `below` left on any master (by a PUT that lost a race). */
  async function dropOlder (collection: string, below: number): Promise<void> {
    await onEveryMaster(async (master) => {
      const prefix = namePrefix(collection, master)
      const names = await master.sender.send<string[]>(undefined, ['FT._LIST'])
      for (const name of names.map(String)) {
        if (!name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length)) || Number(name.slice(prefix.length)) >= below) continue
        await master.sender.send(undefined, ['FT.DROPINDEX', name]).catch((error: unknown) => { if (!isUnknownIndex(error)) throw error })
      }
    })
  }

  /** How far each master's index of a generation has come; `missing` when a master has none. */
  async function progressOf (collection: string, generation: string) {
    const infos = await onEveryMaster((master) => master.sender.send<unknown>(undefined, ['FT.INFO', namePrefix(collection, master) + generation])
      .catch((error: unknown) => { if (isUnknownIndex(error)) return undefined; throw error }))
    let progress = 1
    let documents = 0
    let failures = 0
    const missing = infos.includes(undefined)
    for (const info of infos) {
      if (info === undefined) continue
      const members = fieldsOfReply(info)
      const indexed = Number(members.get('percent_indexed') ?? 0)
      progress = Math.min(progress, Number(members.get('indexing') ?? 0) === 0 ? indexed : Math.min(indexed, 0.99))
      documents += Number(members.get('num_docs') ?? 0)
      failures += Number(members.get('hash_indexing_failures') ?? 0)
    }
    return { progress: missing ? 0 : progress, documents, failures, missing }
  }

  /** Moves `active` to the building generation once it is ready on every master; the older one is dropped. */
  async function promoteIfReady (collection: string, building: string): Promise<'promoted' | 'building' | 'missing'> {
    const { progress, missing } = await progressOf(collection, building)
    if (missing) return 'missing'
    if (progress < 1) return 'building'
    const replaced = await bounded(promoteIndexScript.run(writer, { index: keyOf(collection) }, { generation: building }))
    if (typeof replaced !== 'string') return 'building'
    await dropOlder(collection, Number(building))
    return 'promoted'
  }

  /**
   * Makes a declared generation's index on every master. When a master refuses (or cannot be reached), the
   * declaration is undone, the indexes made on the others are dropped, and the refusal is thrown.
   */
  async function create (collection: string, generation: string, fields: IndexField[],
    replaced: { definition: string, building: string, companions: string }): Promise<void> {
    const prefix = keyPrefix + collection + collectionSeparator
    const masters = await bounded(redis.masters())
    const refused = (error: ErrorReply) => new IndexMissingError(`Redis could not create the index of collection "${collection}" (${error.message}): ` +
      'nothing was declared; PUT the definition again once the cause is gone')
    const made = await Promise.allSettled(masters.map((master) => redisCall(master.sender.send(undefined,
      ['FT.CREATE', namePrefix(collection, master) + generation, ...createArguments(prefix, fields)]), timeoutMs, refused)))
    const failure = made.find((outcome) => outcome.status === 'rejected')
    if (failure === undefined) return
    await bounded(undoPutIndexScript.run(writer, { index: keyOf(collection) }, { generation, ...replaced }))
    await bounded(Promise.all(masters.filter((_, at) => made[at]!.status === 'fulfilled')
      .map((master) => master.sender.send(undefined, ['FT.DROPINDEX', namePrefix(collection, master) + generation])
        .catch((error: unknown) => { if (!isUnknownIndex(error)) throw error }))))
    throw failure.reason
  }

  /**
   * Declares a collection's index; builds a new generation unless the definition is the latest already, made
   * with companion attributes. With `ifLatest`, declares nothing unless the definition is the latest.
   */
  async function put (collection: string, fields: IndexField[], ifLatest = false): Promise<{ rebuilt: boolean }> {
    if (collection.startsWith('{')) throw new BadRequestError('A collection whose name starts with "{" cannot have an index')
    const text = JSON.stringify(canonicalDefinition(fields))
    ready.delete(collection)
    const declare = (replacing: string) => bounded(putIndexScript.run(writer, { index: keyOf(collection) },
      { definition: text, replacing, ifLatest: ifLatest ? '1' : '' }))
    let [status, generation, active, building, replacedDefinition, replacedCompanions] = await declare('')
    if (status === 'changed') return { rebuilt: false }
    if (status === 'same') {
      // The same definition declares its generation again when a master lacks it, unless another instance may
      // still be making it, or when it was made without companion attributes.
      const current = building || active
      const { missing } = await progressOf(collection, current)
      const record = await read(collection)
      if (!missing && record.companions === current) return { rebuilt: false }
      if (missing && record.building === current && await inTheMaking(record)) return { rebuilt: false }
      ;[status, generation, active, building, replacedDefinition, replacedCompanions] = await declare(current)
      if (status !== 'new') return { rebuilt: false }
    }
    await create(collection, generation, fields, { definition: replacedDefinition, building, companions: replacedCompanions })
    if (building !== '') await drop(collection, building)
    await promoteIfReady(collection, generation)
    return { rebuilt: true }
  }

  return {
    put,

    /**
     * Declares the latest definition of a collection's index again when its generation was made without
     * companion attributes; nothing when the definition changes meanwhile (its new generation has them).
     */
    async rebuild (collection: string): Promise<{ rebuilt: boolean }> {
      const { definition } = await read(collection)
      if (definition === undefined) return { rebuilt: false }
      return await put(collection, parsedFields(definition), true)
    },

    /** The definition and how far its index has come; undefined when the collection has none. */
    async state (collection: string): Promise<IndexState | undefined> {
      let record = await read(collection)
      if (record.building !== undefined && await promoteIfReady(collection, record.building) === 'promoted') record = await read(collection)
      if (record.definition === undefined) return undefined
      const generation = record.building ?? record.active!
      const { progress, documents, failures, missing } = await progressOf(collection, generation)
      if (missing && !await inTheMaking(record)) throw indexMissing(collection)
      return {
        definition: JSON.parse(record.definition) as IndexDefinition,
        state: record.building === undefined ? 'ready' : 'building',
        progress: record.building === undefined ? 1 : Math.min(progress, 0.99),
        documents,
        failures
      }
    },

    /** Removes a collection's index (never its documents); false when it had none. */
    async remove (collection: string): Promise<boolean> {
      ready.delete(collection)
      const generations = await bounded(deleteIndexScript.run(writer, { index: keyOf(collection) }, {}))
      if (generations === null) return false
      for (const generation of generations) if (generation !== '') await drop(collection, generation)
      // A query meanwhile may have remembered the index again.
      ready.delete(collection)
      return true
    },

    /**
     * The index queries of a collection use, 'building' while its first generation is not ready yet ('missing'
     * when a master lacks it), or undefined when it has none. A building generation is checked now and then,
     * and takes over once ready. A ready index read less than READY_MEMO_MS ago is answered from memory, unless `fresh`.
     */
    async active (collection: string, fresh = false): Promise<ActiveIndex | 'building' | 'missing' | undefined> {
      const remembered = fresh ? undefined : ready.get(collection)
      if (remembered !== undefined && remembered.until > Date.now()) return remembered.index
      ready.delete(collection)
      let record = await read(collection)
      let building: 'building' | 'missing' = 'building'
      if (record.building !== undefined) {
        const checked = checks.get(collection)
        if (checked === undefined || checked.generation !== record.building || Date.now() - checked.at >= READY_CHECK_MS) {
          const outcome = await promoteIfReady(collection, record.building)
          if (checks.size > 10_000) checks.clear()
          checks.set(collection, { at: Date.now(), generation: record.building, missing: outcome === 'missing' && !await inTheMaking(record) })
          if (outcome === 'promoted') record = await read(collection)
        }
        if (checks.get(collection)?.missing) building = 'missing'
      }
      if (record.active === undefined || record.activeDefinition === undefined) return record.building === undefined ? undefined : building
      const generation = record.active
      const fields = parsedFields(record.activeDefinition)
      const nameOn = (master: MasterNode) => namePrefix(collection, master) + generation
      const companions = record.companions === generation
      if (record.building === undefined) {
        if (ready.size > 10_000) ready.clear()
        ready.set(collection, { index: { generation, fields, nameOn, remembered: true, companions }, until: Date.now() + READY_MEMO_MS })
      }
      return { generation, fields, nameOn, remembered: false, companions }
    }
  }
}

export type IndexStorage = ReturnType<typeof createIndexStorage>
