import { BadRequestError, InvalidJsonPathError } from '../../errors.js'
import { ErrorReply } from 'redis'
import { forgetKeys } from '../../redis/cache.js'
import { planPath, pointerArgs, type DocumentAddress } from '../pointer.js'
import { describeScript, readScript } from '../scripts/reads.js'
import {
  call, checkStatus, keysOf, notFound, parseRecord, recordOf, screenDepth, unwrap, type ScriptReply, type StoreContext,
  type VersionRecord
} from './context.js'

export interface StoredValue extends VersionRecord {
  /** The JSON text RedisJSON holds at the location, as it serialises it. */
  json: string
}

export interface Description extends VersionRecord {
  type: string
  length?: number
  memory: number
  keys?: string[]
}

export type BatchReadItem =
  | ({ key: string, status: 200 } & StoredValue)
  | { key: string, status: 404 | 409 }

export interface Listing {
  keys: string[]
  /** Redis' SCAN cursor to continue from, or undefined when the listing is complete. */
  cursor?: string
}

/** SCAN rounds one listing page may take before it answers with what it has. */
const MAX_SCAN_ROUNDS = 16

export function documentReads (context: StoreContext) {
  const { client } = context

  /** Resolves digit tokens in Lua when reading them all as indices matched nothing. */
  async function resolveAndRead (address: DocumentAddress): Promise<StoredValue> {
    const reply = await call(context, address.key, readScript.run<ScriptReply>(client, keysOf(context, address.key),
      ['', '', '1', '', ...pointerArgs(address.tokens)]))
    checkStatus(reply[0], address)
    return { json: String(reply[2]), ...recordOf(reply[1], reply[3]) }
  }

  /**
   * A document's version record and JSON.GET at a path, in one round trip, or none when both replies
   * are cached. The version is read first: racing a write, it can only be older than the value, never
   * newer, so an If-Match built on it fails safe. A cached document whose record says it has expired
   * is read again from Redis, which may not have told us yet.
   */
  async function readAt (key: string, doc: string, ver: string, path: string): Promise<[VersionRecord, string | null]> {
    const read = async (): Promise<[VersionRecord, string | null]> => {
      const [record, value] = await call(context, key, Promise.all([client.get(ver), client.text.jsonGet(doc, path)]))
      return [parseRecord(record), value]
    }
    const first = await read()
    const { expiresAt } = first[0]
    if (expiresAt === undefined || expiresAt > Date.now() || !client.clientSideCache) return first
    forgetKeys(client, [doc, ver])
    return read()
  }

  return {
    /** The value at an address and the document's version record. */
    async read (address: DocumentAddress): Promise<StoredValue> {
      screenDepth(address)
      const [doc, ver] = keysOf(context, address.key) as [string, string]
      const plan = planPath(address.tokens)
      if (!plan.direct) return resolveAndRead(address)
      const [record, value] = await readAt(address.key, doc, ver, plan.guess)
      if (value === null) throw notFound(address)
      if (value !== '[]') return { json: unwrap(value), ...record }
      if (!plan.ambiguous) throw notFound(address)
      return resolveAndRead(address)
    },

    /** All matches of a read-only JSONPath in a document, as a JSON array. */
    async query (key: string, jsonPath: string): Promise<StoredValue> {
      const [doc, ver] = keysOf(context, key) as [string, string]
      const [record, matches] = await readAt(key, doc, ver, jsonPath).catch((error: unknown) => {
        if (error instanceof ErrorReply) throw new InvalidJsonPathError(`RedisJSON refused the JSONPath: ${error.message}`)
        throw error
      })
      if (matches === null) throw notFound({ key, tokens: [] })
      return { json: matches, ...record }
    },

    /** Type, length, member names and memory use of the value at an address. */
    async describe (address: DocumentAddress): Promise<Description> {
      screenDepth(address)
      const reply = await call(context, address.key, describeScript.run<ScriptReply>(client, keysOf(context, address.key),
        ['', '', '0', '', ...pointerArgs(address.tokens)]))
      checkStatus(reply[0], address)
      const [type, length, memory, keys] = reply[2] as [string, number | null, number, string[] | null]
      return {
        type,
        ...(typeof length === 'number' ? { length } : {}),
        memory,
        ...(Array.isArray(keys) ? { keys } : {}),
        ...recordOf(reply[1], reply[3])
      }
    },

    /** The same location in many documents, in one round trip (two when some are missing). */
    async readMany (keys: readonly string[], tokens: readonly string[]): Promise<BatchReadItem[]> {
      if (keys.length === 0) return []
      const plan = planPath(tokens)
      const [docs, versions] = [[] as string[], [] as string[]]
      for (const key of keys) {
        const [doc, version] = keysOf(context, key) as [string, string]
        docs.push(doc)
        versions.push(version)
      }
      const [records, values] = await call(context, keys[0]!, Promise.all([
        client.sendCommand<Array<string | null>>(['MGET', ...versions]),
        client.sendCommand<Array<string | null>>(['JSON.MGET', ...docs, plan.guess])
      ]))
      const missing = values.flatMap((value, index) => value === null ? [index] : [])
      const types = missing.length === 0
        ? []
        : await call(context, keys[0]!, Promise.all(missing.map((index) => client.sendCommand<string>(['TYPE', docs[index]!]))))
      const wrongType = new Set(missing.filter((_, position) => types[position] !== 'none'))
      return Promise.all(keys.map(async (key, index): Promise<BatchReadItem> => {
        const value = values[index]
        if (value === null || value === undefined) return { key, status: wrongType.has(index) ? 409 : 404 }
        if (value !== '[]') return { key, status: 200, json: unwrap(value), ...parseRecord(records[index]) }
        if (!plan.ambiguous) return { key, status: 404 }
        try {
          return { key, status: 200, ...(await resolveAndRead({ key, tokens: [...tokens] })) }
        } catch {
          return { key, status: 404 }
        }
      }))
    },

    /** One page of the documents whose keys start with prefix (SCAN, never KEYS). */
    async list (prefix: string, cursor: string, limit: number): Promise<Listing> {
      const match = escapeGlob(context.keyPrefix + prefix) + '*'
      const found = new Set<string>()
      let next = cursor
      for (let round = 0; round < MAX_SCAN_ROUNDS; round++) {
        const [following, keys] = await call(context, prefix, client.sendCommand<[string, string[]]>(
          ['SCAN', next, 'MATCH', match, 'COUNT', String(limit), 'TYPE', 'ReJSON-RL']))
        for (const key of keys) found.add(key.slice(context.keyPrefix.length))
        next = following
        if (next === '0' || found.size >= limit) break
      }
      if (!/^\d+$/.test(next)) throw new BadRequestError('Redis returned an unexpected cursor')
      return { keys: [...found], ...(next === '0' ? {} : { cursor: next }) }
    }
  }
}

/** Escapes the characters SCAN's MATCH treats as a pattern. */
export function escapeGlob (text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&')
}
