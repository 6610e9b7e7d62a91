import {
  NotFoundError, OperationFailedError, PatchFailedError, ValueTypeError, WriteContendedError, withExtensions
} from '../../errors.js'
import type { LuaScript } from '../../redis/lua-script.js'
import type { Violation } from '../../schemas/validator.js'
import { formatPointer, pointerArgs, type DocumentAddress } from '../pointer.js'
import { batchPutScript } from '../scripts/batch.js'
import { operationsScript } from '../scripts/operations.js'
import { jsonPatchScript } from '../scripts/patch.js'
import { deleteScript, expiryScript, mergeScript, putScript } from '../scripts/writes.js'
import {
  checkStatus, documentKeysOf, recordOf, withRecord, write, type ScriptReply, type StoreContext, type VersionRecord
} from './context.js'
import { guardedWrite, violationsOf, type Validation } from './guarded.js'

/** Preconditions in the form the scripts take: '' when absent, '*', or versions joined by ','. */
export interface WriteConditions {
  ifMatch: string
  ifNoneMatch: string
}

/** A write's conditions, whether to answer with the value written, and a new time to live. */
export interface WriteOptions extends WriteConditions {
  wantValue: boolean
  /** Milliseconds to live from now; 0 removes the expiry; undefined keeps it. */
  ttlMs?: number
}

/** Options for a write that answers no value. */
function withoutValue ({ ifMatch, ifNoneMatch }: WriteConditions, ttlMs?: number): WriteOptions {
  return { ifMatch, ifNoneMatch, wantValue: false, ttlMs }
}

export interface WriteResult extends Partial<VersionRecord> {
  created: boolean
  /** The value now at the location, when asked for. */
  json?: string
}

/** One JSON Patch operation, its pointers joined to the patch's base and its value as sent. */
export interface PreparedPatchOperation {
  op: string
  path: string[]
  from?: string[]
  value?: string
  /** Why it cannot apply whatever the document holds (a move into its own child, say). */
  invalid?: string
  /** The path as the client wrote it, for the problem that names a failed operation. */
  pathText: string
}

/** One operation of POST, its pointer joined to the base and its arguments as JSON texts. */
export interface PreparedOperation {
  name: string
  path: string[]
  args: [string, string, string]
  values: string[]
}

export interface BatchPutItem extends WriteConditions {
  key: string
  json: string
  ttlMs?: number
}

export interface BatchPutResult {
  key: string
  status: 'created' | 'ok' | 'precondition' | 'wrongtype' | 'invalid'
  version?: string
  /** Why the item's collection schema rejects it, when it does. */
  violations?: Violation[]
}

/** A batch whose collections' schemas keep changing under it gives up after this many attempts. */
const MAX_BATCH_ATTEMPTS = 8

const ttlArg = (ttlMs: number | undefined) => ttlMs === undefined ? '' : String(ttlMs)

export function documentWrites (context: StoreContext) {
  function run (script: LuaScript, address: DocumentAddress, options: WriteOptions,
    extra: readonly string[], validation: Validation = 'result'): Promise<ScriptReply> {
    const head = [options.ifMatch, options.ifNoneMatch, options.wantValue ? '1' : '0', ttlArg(options.ttlMs)]
    return guardedWrite(context, script, address, head, extra, validation)
  }

  function resultOf ([status, version, value, expiresAt]: ScriptReply, address: DocumentAddress): WriteResult {
    checkStatus(status, address)
    const result: WriteResult = { created: status === 'created' }
    if (version) result.version = version
    if (typeof value === 'string') result.json = value
    if (expiresAt) result.expiresAt = Number(expiresAt)
    return result
  }

  return {
    /** Sets the whole document, or the value at a location whose parent exists. */
    async put (address: DocumentAddress, json: string, options: WriteOptions): Promise<WriteResult> {
      const validation = address.tokens.length === 0 ? { document: json } : 'result'
      return resultOf(await run(putScript, address, options, [json], validation), address)
    },

    /** Applies an RFC 7396 merge patch at a location. */
    async merge (address: DocumentAddress, patch: { text: string, value: unknown }, options: WriteOptions) {
      const isObject = typeof patch.value === 'object' && patch.value !== null && !Array.isArray(patch.value)
      return resultOf(await run(mergeScript, address, options, [patch.text, isObject ? '1' : '0']), address)
    },

    /** Removes the document, or the value at a location. */
    async remove (address: DocumentAddress, conditions: WriteConditions) {
      const validation = address.tokens.length === 0 ? 'never' : 'result'
      return resultOf(await run(deleteScript, address, withoutValue(conditions), [], validation), address)
    },

    /** Applies a JSON Patch (RFC 6902) at a location: every operation, or none. */
    async jsonPatch (address: DocumentAddress, operations: readonly PreparedPatchOperation[], options: WriteOptions) {
      const extra = [String(operations.length), ...operations.flatMap((operation) => [
        operation.op, operation.invalid ?? '', operation.value ?? '',
        ...pointerArgs(operation.path, true), ...pointerArgs(operation.from ?? [], true)
      ])]
      const reply = await run(jsonPatchScript, address, options, extra)
      if (reply[0] === 'failed') {
        const index = Number(reply[1])
        const failed = operations[index]!
        throw withExtensions(
          new PatchFailedError(`Operation ${index} (${failed.op} at "${failed.pathText}") failed: ${String(reply[2])}`),
          { operation: index, path: failed.pathText })
      }
      return resultOf(reply, address)
    },

    /** Applies operations in order, atomically; answers each one's result as JSON text. */
    async operate (address: DocumentAddress, operations: readonly PreparedOperation[], options: WriteOptions) {
      const extra = [String(operations.length), ...operations.flatMap((operation) => [
        operation.name, ...pointerArgs(operation.path, true), ...operation.args,
        String(operation.values.length), ...operation.values
      ])]
      const reply = await run(operationsScript, address, withoutValue(options, options.ttlMs), extra)
      if (reply[0] === 'failed') throw operationFailure(reply, operations, address)
      checkStatus(reply[0], address)
      return withRecord({ results: (reply[2] as string[]).map(String) }, recordOf(reply[1], reply[3]))
    },

    /** Reads (ttlMs undefined), sets or removes (0) a whole document's time to live. */
    async expiry (key: string, ttlMs: number | undefined, conditions: WriteConditions): Promise<VersionRecord> {
      const address = { key, tokens: [] }
      const reply = await run(expiryScript, address, withoutValue(conditions, ttlMs), [], 'never')
      checkStatus(reply[0], address)
      return recordOf(reply[1], reply[3])
    },

    /**
     * Writes whole documents in one atomic step; each item succeeds or fails on its own, and an item
     * its collection's schema rejects is not written.
     */
    async putMany (items: readonly BatchPutItem[]): Promise<BatchPutResult[]> {
      if (items.length === 0) return []
      for (let attempt = 0; attempt < MAX_BATCH_ATTEMPTS; attempt++) {
        const rules = await Promise.all(items.map((item) => context.rules.rulesFor(item.key)))
        const violations = items.map((item, index) => violationsOf(rules[index]!.validate, item.json))
        const confirmed = await Promise.all(items.map((item, index) =>
          violations[index] ? context.rules.confirm(item.key, rules[index]!) : true))
        if (confirmed.includes(false)) continue
        const valid = items.flatMap((item, index) => violations[index] ? [] : [{ item, rules: rules[index]! }])
        const documentKeys = valid.map(({ item }) => documentKeysOf(context, item.key))
        const keys = valid.flatMap(({ rules }, index) => [...documentKeys[index]!, rules.schemaKey])
        const args = [String(valid.length), ...valid.flatMap(({ item, rules }) =>
          [item.ifMatch, item.ifNoneMatch, ttlArg(item.ttlMs), rules.guard, item.json])]
        const replies = valid.length === 0
          ? []
          : await write(context, items[0]!.key, documentKeys.flat(),
            batchPutScript.run<Array<[BatchPutResult['status'], string | null]> | ['schemachanged']>(context.client, keys, args))
        if (replies[0] === 'schemachanged') {
          items.forEach((item) => context.rules.forget(item.key))
          continue
        }
        const written = replies as Array<[BatchPutResult['status'], string | null]>
        let next = 0
        return items.map((item, index): BatchPutResult => {
          const rejected = violations[index]
          if (rejected) return { key: item.key, status: 'invalid', violations: rejected }
          const [status, version] = written[next++]!
          return { key: item.key, status, ...(version ? { version } : {}) }
        })
      }
      throw new WriteContendedError(items[0]!.key)
    }
  }
}

function operationFailure (reply: ScriptReply, operations: readonly PreparedOperation[], address: DocumentAddress) {
  const [, rawIndex, reason, detail] = reply as unknown as [string, number, string, string]
  const index = Number(rawIndex)
  const operation = operations[index]!
  const pointer = formatPointer(operation.path)
  const extensions = { operation: index, pointer }
  const subject = `Operation ${index} (${operation.name} at "${pointer}")`
  switch (reason) {
    case 'notfound':
      return withExtensions(new NotFoundError(`${subject}: document "${address.key}" has no value there`), extensions)
    case 'type':
      return withExtensions(new ValueTypeError(`${subject} does not apply to a value of type ${detail}`), extensions)
    default:
      return withExtensions(new OperationFailedError(`${subject}: ${detail}`), extensions)
  }
}
