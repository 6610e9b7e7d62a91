import type { ErrorReply } from 'redis'
import {
  limitExceeded, NotFoundError, PreconditionFailedError, WrongTypeError
} from '../../errors.js'
import { TOO_COSTLY } from '../scripts/prelude.js'
import type { EventLogBounds } from '../scripts/guarded-write.js'
import type { DocumentReply, Succeeded } from '../scripts/protocol.js'
import { forgetKeys } from '../../redis/cache.js'
import { redisCall } from '../../redis/deadline.js'
import type { CommandSender, Redis } from '../../redis/redis.js'
import type { CostLimits } from '../../config.js'
import type { SchemaRules } from '../../collections/rules.js'
import type { ValidationPool } from '../../collections/validation-pool.js'
import type { KeyedQueue } from './keyed-queue.js'
import { formatPointer, MAX_POINTER_TOKENS, type DocumentAddress } from '../pointer.js'
import { keyBeside } from '../../redis/slots.js'
import { MIRROR_SUFFIX } from '../../collections/storage.js'

export interface DocumentStoreOptions {
  keyPrefix: string
  /** Longest wait for Redis before a call fails with RedisUnavailableError. */
  timeoutMs: number
  limits: CostLimits
  /** Every write's change feed (EVENTS_MAXLEN, EVENTS_RETENTION_MS): a maxLen of 0 records nothing. */
  events: EventFeedSettings
}

export interface EventFeedSettings {
  /** Entries each document's events stream keeps at least, about. */
  maxLen: number
  /** How long an entry is kept, at least while fewer than maxLen followed it; the stream goes once idle that long. */
  retentionMs: number
  /** Entries the namespace's feed (every write's entry, with its key: prefix streams read it) keeps, about; 0: none. */
  feedMaxLen: number
  /** Longest changes an entry carries; a write's longer ones are recorded without them (readers read the document). */
  maxEntryBytes: number
}

/** What every part of the store shares: the client, the namespace, the collections' schemas. */
export interface StoreContext extends DocumentStoreOptions {
  redis: Redis
  /** Runs the write scripts: the client, or one that waits for WRITE_REPLICAS. */
  writer: CommandSender
  rules: SchemaRules
  /** The worker threads that validate documents against their schemas. */
  validation: ValidationPool
  /** Serialises validated writes per document within this instance. */
  validatedWrites: KeyedQueue
}

/** A document's version and, when it has a time to live, the instant it expires (ms since epoch). */
export interface VersionRecord {
  version: string
  expiresAt?: number
}


/** Suffix of the key holding a document's version record: control characters never occur in client keys. */
export const VERSION_SUFFIX = '\u001fversion'
/** Suffix of the event log, every write's entry with its document's key (see src/live): on a cluster, one per slot. */
export const LOG_SUFFIX = '\u001ffeed'

/**
 * Keys for data of the document at `key` (its version record, scratch copies), `<prefix>{tag}<key><suffix>`,
 * one per suffix: the tag puts them in the document's own hash slot, so that one script may reach them all on
 * a Redis Cluster, whatever braces the document's key holds. The slot is computed once. The document's own
 * key is `<prefix><key>`, as always.
 */
export function derivedKeysOf (context: Pick<StoreContext, 'keyPrefix'>, key: string, suffixes: readonly string[],
  slotSuffixes: readonly string[] = []): string[] {
  const slot = keyBeside(context.keyPrefix + key, context.keyPrefix, '')
  return [...suffixes.map((suffix) => slot + key + suffix), ...slotSuffixes.map((suffix) => slot + suffix)]
}

/**
 * The schema mirror (see the collections' storage) a write checks, from the key of its slot's: on a single
 * Redis, the one mirror of the namespace.
 */
export function schemaMirror (context: StoreContext, slotMirror: string): string {
  return context.redis.isCluster ? slotMirror : context.keyPrefix + MIRROR_SUFFIX
}

/**
 * The event log a write appends to, from the key of its slot's: on a single Redis, the one log of the namespace;
 * on a cluster, its slot's (streams read every slot's log, see src/live/cluster-feed.ts).
 */
export function logKey (context: Pick<StoreContext, 'keyPrefix' | 'redis'>, slotLog: string): string {
  return context.redis.isCluster ? slotLog : context.keyPrefix + LOG_SUFFIX
}

/** The event log of the document at key's slot. */
export function logOf (context: Pick<StoreContext, 'keyPrefix' | 'redis'>, key: string): string {
  return logKey(context, derivedKeysOf(context, key, [], [LOG_SUFFIX])[0]!)
}

/**
 * What every write script takes to record its event (see recordEvent): the log keeps EVENTS_FEED_MAXLEN entries
 * (on a cluster, each slot's), or EVENTS_MAXLEN when that is 0; none when EVENTS_MAXLEN is 0.
 */
export function eventLogBoundsOf ({ events }: StoreContext): EventLogBounds {
  return {
    logMaxLen: events.maxLen === 0 ? 0 : events.feedMaxLen || events.maxLen,
    retentionMs: events.retentionMs,
    maxEntryBytes: events.maxEntryBytes
  }
}

/** The Redis keys holding a document: the JSON document and its version record. */
export function documentKeysOf (context: StoreContext, key: string): [doc: string, ver: string] {
  return [context.keyPrefix + key, derivedKeysOf(context, key, [VERSION_SUFFIX])[0]!]
}

/** A pointer as the change feed records it: JSON-encoded. */
export function feedPointer (tokens: readonly string[]): string {
  return JSON.stringify(formatPointer(tokens))
}

/** A Redis call bounded by the deadline, its errors turned into domain errors. */
export function call<T> (context: StoreContext, key: string, work: Promise<T>): Promise<T> {
  return redisCall(work, context.timeoutMs, (error) => translateRedisError(context, key, error))
}

/**
 * A write bounded like call. Once Redis answers, the client-side cache forgets the keys written, so
 * the next read sees the write even before Redis' own invalidation arrives.
 */
export function write<T> (context: StoreContext, key: string, written: readonly string[], work: Promise<T>): Promise<T> {
  return call(context, key, work.finally(() => forgetKeys(context.redis.cache, written)))
}

/** Parses "version", "version:expiresAt" or "version:expiresAt:size:depth"; a document without a record is version 0. */
export function parseRecord (record: string | null | undefined): VersionRecord & { size?: number } {
  if (!record) return { version: '0' }
  const [version = '0', expires, size] = record.split(':')
  const parsed: VersionRecord & { size?: number } = expires ? { version, expiresAt: Number(expires) } : { version }
  if (size) parsed.size = Number(size)
  return parsed
}

/**
 * Adds a version record's fields to target one by one. Hot paths build their results this way: an
 * object spread of a fresh record made V8 promote every result to the old generation.
 */
export function withRecord<T extends object> (target: T, record: VersionRecord): T & VersionRecord {
  const result = target as T & VersionRecord
  result.version = record.version
  if (record.expiresAt !== undefined) result.expiresAt = record.expiresAt
  return result
}

/** The version record of a script's reply: its version and, when set, its expiry. */
export function recordOf ({ version, expiresAt }: Succeeded<unknown>): VersionRecord {
  return expiresAt ? { version: String(version), expiresAt } : { version: String(version) }
}

/** JSON.GET with a `$` path answers a JSON array of the matches; ours match exactly one location. */
export function unwrap (matches: string): string {
  return matches.slice(1, -1)
}

export function notFound (address: DocumentAddress) {
  const location = address.tokens.length ? ` at ${formatPointer(address.tokens)}` : ''
  return new NotFoundError(`Document "${address.key}" has no value${location}`)
}

/** Refuses, before Redis, a pointer deeper than any value RedisJSON can hold. */
export function screenDepth (address: DocumentAddress): void {
  if (address.tokens.length > MAX_POINTER_TOKENS) throw notFound(address)
}

/** A script's reply when it succeeded; else the domain error of its status. */
export function succeeded<V> (reply: DocumentReply<V>, address: DocumentAddress): Succeeded<V> {
  checkStatus(reply.status, address)
  return reply as Succeeded<V>
}

/** Throws the domain error of a failed script status. */
export function checkStatus (status: string, address: DocumentAddress): void {
  switch (status) {
    case 'ok':
    case 'created':
      return
    case 'notfound':
      throw notFound(address)
    case 'precondition':
      throw new PreconditionFailedError(`The precondition does not hold for document "${address.key}"`)
    case 'wrongtype':
      throw new WrongTypeError(address.key)
    default:
      throw new Error(`Unexpected script status ${status}`)
  }
}

/** The 422 of a request that would make Redis walk more JSON text than MAX_WORK_BYTES. */
export function tooCostly ({ limits }: StoreContext, what = 'The request') {
  return limitExceeded('MAX_WORK_BYTES', limits.workBytes,
    `${what} would make Redis handle more than ${limits.workBytes} bytes of JSON text at once; nothing was written`)
}

/** Redis error replies as domain errors: a wrong-type key is a conflict, a script at its work limit a 422. */
function translateRedisError (context: StoreContext, key: string, error: ErrorReply): Error {
  if (error.message.includes(TOO_COSTLY)) return tooCostly(context)
  // Lua's JSON decoder stops at 1,000 levels: a write that nests a document deeper (a JSON Patch copying a
  // document into itself, over and over) ran on a copy, which the script dropped; nothing was written.
  if (/recursion limit exceeded/i.test(error.message)) {
    return limitExceeded('MAX_DEPTH', 1000, 'The write would nest the document deeper than its scripts can read (1,000 levels); nothing was written')
  }
  return /wrong ?type|wrong Redis type/i.test(error.message) ? new WrongTypeError(key) : error
}
