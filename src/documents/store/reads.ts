import { BadRequestError, InvalidJsonPathError, limitExceeded } from '../../errors.js'
import type { JsonPathShape } from '../jsonpath.js'
import { forgetKeys } from '../../redis/cache.js'
import { readKeys } from '../../redis/multi-key.js'
import type { MasterNode } from '../../redis/redis.js'
import type { Replied } from '../../redis/derived-cache.js'
import { planPath, type DocumentAddress } from '../pointer.js'
import { describeScript, queryScript, readScript } from '../scripts/reads.js'
import { documentEntriesScript, snapshotScript, type ChainReply } from '../scripts/events.js'
import {
  call, documentKeysOf, logOf, notFound, parseRecord, recordOf, screenDepth, succeeded, unwrap, withRecord,
  type StoreContext, type VersionRecord
} from './context.js'

/** A location's value as a live stream starts from it: the document's entry it follows, and the log's last entry then. */
export interface Snapshot {
  at: string
  logAt: string
  json?: string
  version?: string
}

export interface StoredValue extends VersionRecord {
  /** The JSON text RedisJSON holds at the location, as it serialises it. */
  json: string
  /**
   * The commands and replies it was read from, when the client-side cache may hold them: an answer built
   * from this value holds as long as the cache keeps these very replies (see the answer cache).
   */
  sources?: readonly Replied[]
}

export interface Description extends VersionRecord {
  type: string
  length?: number
  memory: number
  keys?: string[]
}

/**
 * One document's value in a batch read. A 404 of a document that exists but holds nothing at the location
 * carries the document's version; one of a document that does not exist has none.
 */
export type BatchReadItem =
  | ({ key: string, status: 200 } & StoredValue)
  | { key: string, status: 404, version?: string }
  | { key: string, status: 409 }

/** Where a listing goes on: a master (by its id, '' on a single Redis) and Redis' SCAN cursor there. */
export interface ScanPosition {
  node: string
  cursor: string
}

export interface Listing {
  keys: string[]
  /** Where to continue from, or undefined when the listing is complete. */
  next?: ScanPosition
}

/** A control character: no document key has one, every key the scripts keep beside documents does. */
const INTERNAL_KEY = /\p{Cc}/u

/** SCAN rounds one listing page may take before it answers with what it has. */
const MAX_SCAN_ROUNDS = 16

/** A version record and a value as Redis answered them, and the record parsed. */
interface Fetched {
  recordText: string | null
  record: VersionRecord
  value: string | null
}

function fetchedOf ([recordText, value]: [string | null, string | null]): Fetched {
  return { recordText, record: parseRecord(recordText), value }
}

/** Whether a pair read may hold a document that has expired: its record says so, or it has a value and no record. */
function mayHaveExpired ({ recordText, record, value }: Fetched): boolean {
  if (recordText === null) return value !== null
  return record.expiresAt !== undefined && record.expiresAt <= Date.now()
}

export function documentReads (context: StoreContext) {
  const { redis } = context
  const cache = redis.cache

  /** Resolves digit tokens in Lua when reading them all as indices matched nothing. */
  async function resolveAndRead (address: DocumentAddress): Promise<StoredValue> {
    const [doc, ver] = documentKeysOf(context, address.key)
    const reply = succeeded(await call(context, address.key,
      readScript.run(redis, { doc, ver }, { tokens: address.tokens, maxWork: context.limits.workBytes })), address)
    return withRecord({ json: String(reply.value) }, recordOf(reply))
  }

  /**
   * A document's version record and JSON.GET at a path, in one round trip. Only typed commands meet the
   * client-side cache; without one, raw commands cost the read less.
   */
  const fetchPair: (ver: string, doc: string, path: string) => Promise<[string | null, string | null]> = cache
    ? (ver, doc, path) => Promise.all([redis.get(ver), redis.jsonGet(doc, path)])
    : (ver, doc, path) => Promise.all([
        redis.send<string | null>(doc, ['GET', ver]), redis.send<string | null>(doc, ['JSON.GET', doc, path])
      ])

  /**
   * The version record and value at a path, or none from Redis when both replies are cached. The
   * version is read first: racing a write, it can only be older than the value, never newer, so an
   * If-Match built on it fails safe. With the cache on, a pair either of whose replies may be a cached
   * one Redis has not invalidated yet is read again from Redis: a record saying the document has
   * expired, and a document without a record, since Redis removes expired keys one at a time and may
   * have removed the record (and said so) before the document. A document written straight into Redis,
   * which has no record, is therefore read twice whenever the answer cache does not hold it.
   */
  async function readAt (key: string, doc: string, ver: string, path: string): Promise<Fetched> {
    const first = fetchedOf(await call(context, key, fetchPair(ver, doc, path)))
    if (!cache || !mayHaveExpired(first)) return first
    forgetKeys(cache, [doc, ver])
    return fetchedOf(await call(context, key, fetchPair(ver, doc, path)))
  }

  return {
    /** The value at an address and the document's version record; with caching on, the replies it was read from. */
    async read (address: DocumentAddress): Promise<StoredValue> {
      screenDepth(address)
      const [doc, ver] = documentKeysOf(context, address.key)
      const plan = planPath(address.tokens)
      if (!plan.direct) return resolveAndRead(address)
      const fetched = await readAt(address.key, doc, ver, plan.guess)
      const { value } = fetched
      if (value === null) throw notFound(address)
      if (value !== '[]') {
        const answer: StoredValue = withRecord({ json: unwrap(value) }, fetched.record)
        if (cache) answer.sources = [[['GET', ver], fetched.recordText], [['JSON.GET', doc, plan.guess], value]]
        return answer
      }
      if (!plan.ambiguous) throw notFound(address)
      return resolveAndRead(address)
    },

    /**
     * The value at a location (undefined when none) with its version, the id of the document's last entry in
     * the event log then ('0-0' when none) and the log's, read in one step: the start of a live stream.
     */
    async snapshot (address: DocumentAddress): Promise<Snapshot> {
      screenDepth(address)
      const [doc, ver] = documentKeysOf(context, address.key)
      const [status, at, logAt, value, version] = await call(context, address.key, snapshotScript.run(redis,
        { doc, ver, log: logOf(context, address.key) }, { tokens: address.tokens, maxWork: context.limits.workBytes }))
      return status === 'ok' ? { at, logAt, json: value!, version: version! } : { at, logAt }
    },

    /**
     * Entries of the document at key, newest first, from `from` ('' for its last) back to `stop` (excluded):
     * see documentEntriesScript.
     */
    async entriesOf (key: string, from: string, stop: string, count: number, maxBytes: number): Promise<ChainReply> {
      const [, ver] = documentKeysOf(context, key)
      return await call(context, key, documentEntriesScript.run(redis, { ver: ver!, log: logOf(context, key) }, { from, stop, count, maxBytes }))
    },

    /** All matches of a read-only JSONPath in a document, as a JSON array, within the work and reply limits. */
    async query (key: string, jsonPath: string, shape: JsonPathShape): Promise<StoredValue> {
      const { limits } = context
      const [doc, ver] = documentKeysOf(context, key)
      const reply = await call(context, key, queryScript.run(redis, { doc, ver }, {
        path: jsonPath, descents: shape.descents, filters: shape.filters, multiple: shape.multiple,
        maxValues: limits.jsonPathValues, maxReply: limits.replyBytes
      }))
      switch (reply.status) {
        case 'toocostly':
          throw limitExceeded('MAX_JSONPATH_VALUES', limits.jsonPathValues, `The JSONPath could make RedisJSON visit ` +
            `${String(reply.estimate)} values (one per two bytes of the document, times its depth plus one for each recursive ` +
            'descent, times one plus the filters)')
        case 'toolarge':
          throw limitExceeded('MAX_REPLY_BYTES', limits.replyBytes, `The JSONPath matches ${reply.size} bytes`)
        case 'badpath':
          throw new InvalidJsonPathError(`RedisJSON refused the JSONPath: ${reply.message}`)
      }
      const done = succeeded(reply, { key, tokens: [] })
      return withRecord({ json: String(done.value) }, recordOf(done))
    },

    /** Type, length, member names and memory use of the value at an address. */
    async describe (address: DocumentAddress): Promise<Description> {
      screenDepth(address)
      const [doc, ver] = documentKeysOf(context, address.key)
      const reply = succeeded(await call(context, address.key,
        describeScript.run(redis, { doc, ver }, { tokens: address.tokens, maxWork: context.limits.workBytes })), address)
      const [type, length, memory, keys] = reply.value!
      return {
        type,
        ...(typeof length === 'number' ? { length } : {}),
        memory,
        ...(Array.isArray(keys) ? { keys } : {}),
        ...recordOf(reply)
      }
    },

    /**
     * The same location in many documents, a chunk at a time: the version records first, then the values
     * in chunks whose documents' size bounds fit in MAX_REPLY_BYTES (most batches are one chunk: two round
     * trips, three when some are missing), so what Redis sends at once stays bounded. On a cluster, each
     * step sends a command per hash slot, all at once (readKeys). Raw commands, not a script: Lua doing the
     * same costs Redis more than the round trip it saves (see bench/README.md).
     */
    async * readChunks (keys: readonly string[], tokens: readonly string[]): AsyncGenerator<BatchReadItem[]> {
      if (keys.length === 0) return
      const plan = planPath(tokens)
      const [docs, versions] = [[] as string[], [] as string[]]
      for (const key of keys) {
        const [doc, version] = documentKeysOf(context, key)
        docs.push(doc)
        versions.push(version)
      }
      const records = await call(context, keys[0]!, readKeys<string | null>(redis, versions, (some) => ['MGET', ...some]))
      const bounds = records.map((record) => parseRecord(record).size ?? context.limits.documentBytes)
      for (const [from, to] of chunksWithin(bounds, context.limits.replyBytes)) {
        const values = await call(context, keys[from]!,
          readKeys<string | null>(redis, docs.slice(from, to), (some) => ['JSON.MGET', ...some, plan.guess]))
        const missing = values.flatMap((value, index) => value === null ? [from + index] : [])
        const types = missing.length === 0
          ? []
          : await call(context, keys[from]!, Promise.all(missing.map((index) => redis.send<string>(docs[index], ['TYPE', docs[index]!]))))
        const wrongType = new Set(missing.filter((_, position) => types[position] !== 'none'))
        const items: BatchReadItem[] = []
        const unresolved: number[] = []
        for (let index = from; index < to; index++) {
          const key = keys[index]!
          const value = values[index - from]
          if (value === null || value === undefined) items.push({ key, status: wrongType.has(index) ? 409 : 404 })
          else if (value !== '[]') items.push(withRecord({ key, status: 200 as const, json: unwrap(value) }, parseRecord(records[index])))
          else if (!plan.ambiguous) items.push({ key, status: 404, version: parseRecord(records[index]).version })
          else unresolved.push(items.push({ key, status: 404, version: parseRecord(records[index]).version }) - 1)
        }
        // Digit tokens that matched nothing as indices: the few such documents resolve them in Lua, one by one.
        await Promise.all(unresolved.map(async (position) => {
          const { key } = items[position]!
          const found = await resolveAndRead({ key, tokens: [...tokens] }).catch(() => undefined)
          if (found !== undefined) items[position] = { key, status: 200, ...found }
        }))
        yield items
      }
    },

    /** The versions of many documents, as their records say them ('0' for a document without one, or none). */
    async versions (keys: readonly string[]): Promise<string[]> {
      if (keys.length === 0) return []
      const records = await call(context, keys[0]!, readKeys<string | null>(redis,
        keys.map((key) => documentKeysOf(context, key)[1]), (some) => ['MGET', ...some]))
      return records.map((record) => parseRecord(record).version)
    },

    /** The same location in many documents, refused when the values add up past MAX_REPLY_BYTES. */
    async readMany (keys: readonly string[], tokens: readonly string[]): Promise<BatchReadItem[]> {
      const items: BatchReadItem[] = []
      let bytes = 0
      for await (const chunk of this.readChunks(keys, tokens)) {
        for (const item of chunk) if (item.status === 200) bytes += item.json.length
        if (bytes > context.limits.replyBytes) {
          throw limitExceeded('MAX_REPLY_BYTES', context.limits.replyBytes,
            `The values read add up to more than ${context.limits.replyBytes} bytes; read fewer documents at once`)
        }
        items.push(...chunk)
      }
      return items
    },

    /**
     * One page of the documents whose keys start with prefix (SCAN, never KEYS), those `admits` keeps, from
     * a position (the first master's start when none). On a cluster the listing scans one master after
     * another, in the order of their ids.
     */
    async list (prefix: string, from: ScanPosition | undefined, limit: number,
      admits: (key: string) => boolean = () => true): Promise<Listing> {
      const match = escapeGlob(context.keyPrefix + prefix) + '*'
      const found = new Set<string>()
      let node: MasterNode | undefined = from === undefined
        ? (await call(context, prefix, redis.masters()))[0]
        : await call(context, prefix, redis.master(from.node))
      if (node === undefined) throw new BadRequestError('The cursor names a node this Redis does not have')
      let next = from?.cursor ?? '0'
      for (let round = 0; round < MAX_SCAN_ROUNDS; round++) {
        const [following, keys] = await call(context, prefix, node.sender.send<[string, string[]]>(undefined,
          ['SCAN', next, 'MATCH', match, 'COUNT', String(limit), 'TYPE', 'ReJSON-RL']))
        for (const key of keys) {
          // Scripts' copies and scratch keys are JSON too; their control characters tell them from documents.
          if (INTERNAL_KEY.test(key)) continue
          const documentKey = key.slice(context.keyPrefix.length)
          if (admits(documentKey)) found.add(documentKey)
        }
        if (!/^\d+$/.test(following)) throw new BadRequestError('Redis returned an unexpected cursor')
        next = following
        if (next === '0') {
          const current: MasterNode = node
          node = (await call(context, prefix, redis.masters())).find((master) => Number(master.id) > Number(current.id))
          if (node === undefined) break
        }
        if (found.size >= limit) break
      }
      return { keys: [...found], ...(node === undefined ? {} : { next: { node: node.id, cursor: next } }) }
    }
  }
}

/** Escapes the characters SCAN's MATCH treats as a pattern. */
export function escapeGlob (text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&')
}

/** Index ranges [from, to) of consecutive items whose bounds add up to at most budget (one item at least). */
export function chunksWithin (bounds: readonly number[], budget: number): Array<[number, number]> {
  const chunks: Array<[number, number]> = []
  let from = 0
  let sum = 0
  for (let index = 0; index < bounds.length; index++) {
    if (index > from && sum + bounds[index]! > budget) {
      chunks.push([from, index])
      from = index
      sum = 0
    }
    sum += bounds[index]!
  }
  if (bounds.length > from) chunks.push([from, bounds.length])
  return chunks
}
