import { ErrorReply } from 'redis'
import {
  NotFoundError, PreconditionFailedError, RedisUnavailableError, WrongTypeError
} from '../errors.js'
import type { RedisClient } from '../redis/plugin.js'
import { withDeadline } from '../redis/deadline.js'
import type { LuaScript } from '../redis/lua-script.js'
import { formatPointer, MAX_POINTER_TOKENS, planPath, type DocumentAddress } from './pointer.js'
import { deleteScript, mergeScript, putScript, readScript } from './scripts.js'

/** Conditions of a write, in the form the scripts take (see scripts.ts). */
export interface WriteConditions {
  ifMatch: string
  ifNoneMatch: string
}

export interface StoredValue {
  /** The JSON text RedisJSON holds at the location, as it serialises it. */
  json: string
  version: string
}

export interface WriteResult {
  created: boolean
  /** The document's version after the write; undefined once the document is gone. */
  version?: string
  /** The value now at the location, when asked for. */
  json?: string
}

type ScriptReply = [status: string, version?: string | null, value?: string | null]

/** Suffix of the key holding a document's version: control characters never occur in client keys. */
const VERSION_SUFFIX = '\u001fversion'

export interface DocumentStoreOptions {
  keyPrefix: string
  /** Longest wait for Redis before a call fails with RedisUnavailableError. */
  timeoutMs: number
}

/** The only caller of RedisJSON: turns addresses into keys and paths, and replies into results. */
export function createDocumentStore (client: RedisClient, { keyPrefix, timeoutMs }: DocumentStoreOptions) {
  const call = <T>(address: DocumentAddress, work: Promise<T>) =>
    withDeadline(work, timeoutMs).catch(translateRedisError(address))
  const keysOf = (key: string) => [keyPrefix + key, keyPrefix + key + VERSION_SUFFIX]

  async function runWrite (script: LuaScript, address: DocumentAddress, conditions: WriteConditions,
    wantValue: boolean, extra: readonly string[]): Promise<WriteResult> {
    if (address.tokens.length > MAX_POINTER_TOKENS) throw notFound(address)
    const plan = planPath(address.tokens)
    const args = [conditions.ifMatch, conditions.ifNoneMatch, wantValue ? '1' : '0',
      String(address.tokens.length), ...plan.steps, ...extra]
    const [status, version, value] = await call(address, script.run<ScriptReply>(client, keysOf(address.key), args))
    checkStatus(status, address)
    return {
      created: status === 'created',
      ...(version ? { version } : {}),
      ...(value ? { json: unwrap(value) } : {})
    }
  }

  return {
    /** The value at an address and the document's version. */
    async read (address: DocumentAddress): Promise<StoredValue> {
      if (address.tokens.length > MAX_POINTER_TOKENS) throw notFound(address)
      const [docKey, versionKey] = keysOf(address.key)
      const plan = planPath(address.tokens)
      // The version is read first: racing a write, it can only be older than the value, never newer,
      // so an If-Match built on it fails safe.
      const [version, value] = await call(address, Promise.all([
        client.sendCommand<string | null>(['GET', versionKey!]),
        client.sendCommand<string | null>(['JSON.GET', docKey!, plan.guess])
      ]))
      if (value === null) throw notFound(address)
      if (value !== '[]') return { json: unwrap(value), version: version ?? '0' }
      if (!plan.ambiguous) throw notFound(address)
      const [status, resolvedVersion, resolved] = await call(address, readScript
        .run<ScriptReply>(client, keysOf(address.key), ['', '', '1', String(address.tokens.length), ...plan.steps]))
      checkStatus(status, address)
      return { json: unwrap(resolved!), version: resolvedVersion! }
    },

    /** Sets the whole document, or the value at a location whose parent exists. */
    put (address: DocumentAddress, json: string, conditions: WriteConditions, wantValue: boolean) {
      return runWrite(putScript, address, conditions, wantValue, [json])
    },

    /** Applies an RFC 7396 merge patch at a location. */
    merge (address: DocumentAddress, patch: { text: string, value: unknown }, conditions: WriteConditions,
      wantValue: boolean) {
      const isObject = typeof patch.value === 'object' && patch.value !== null && !Array.isArray(patch.value)
      return runWrite(mergeScript, address, conditions, wantValue, [patch.text, isObject ? '1' : '0'])
    },

    /** Removes the document, or the value at a location. */
    remove (address: DocumentAddress, conditions: WriteConditions) {
      return runWrite(deleteScript, address, conditions, false, [])
    }
  }
}

export type DocumentStore = ReturnType<typeof createDocumentStore>

/** JSON.GET with a `$` path answers a JSON array of the matches; ours match exactly one location. */
function unwrap (matches: string): string {
  return matches.slice(1, -1)
}

function notFound (address: DocumentAddress) {
  const location = address.tokens.length ? ` at ${formatPointer(address.tokens)}` : ''
  return new NotFoundError(`Document "${address.key}" has no value${location}`)
}

function checkStatus (status: string, address: DocumentAddress): void {
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

/** Redis errors as domain errors: a wrong-type key is a conflict, anything else about the link is 503. */
function translateRedisError (address: DocumentAddress) {
  return (error: unknown): never => {
    if (error instanceof RedisUnavailableError) throw error
    if (error instanceof ErrorReply) {
      if (/wrong ?type|wrong Redis type/i.test(error.message)) throw new WrongTypeError(address.key)
      throw error
    }
    throw new RedisUnavailableError((error as Error).message ?? String(error))
  }
}
