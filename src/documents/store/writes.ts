import {
  NotFoundError, OperationFailedError, PatchFailedError, ValueTypeError, WriteContendedError, withExtensions
} from '../../errors.js'
import type { WriteRules } from '../../collections/rules.js'
import type { ValidationBudget } from '../../collections/validation-pool.js'
import type { Violation } from '../../collections/validator.js'
import { formatPointer, type DocumentAddress } from '../pointer.js'
import { batchPutScript, type BatchReply } from '../scripts/batch.js'
import { operationsScript } from '../scripts/operations.js'
import { jsonPatchScript } from '../scripts/patch.js'
import { deleteScript, expiryScript, mergeScript, putScript } from '../scripts/writes.js'
import type { GuardedScript } from '../scripts/guarded-write.js'
import type { DocumentReply } from '../scripts/protocol.js'
import { MIRROR_SUFFIX } from '../../collections/storage.js'
import { groupsBySlot } from '../../redis/slots.js'
import {
  derivedKeysOf, documentKeysOf, eventLogBoundsOf, feedPointer, LOG_SUFFIX, logKey, recordOf, schemaMirror, succeeded, withRecord, write, type StoreContext, type VersionRecord
} from './context.js'
import { guardedWrite, type Sizing, type Validation } from './guarded.js'
import { storedSizeBound } from '../json-text.js'

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
  /** How deep the value nests (0 for a scalar or no value). */
  valueDepth: number
}

/** One operation of POST, its pointer joined to the base and its arguments as JSON texts. */
export interface PreparedOperation {
  name: string
  path: string[]
  args: [string, string, string]
  values: string[]
  /** How deep the deepest of values nests. */
  valuesDepth: number
}

/** A JSON text written as a document or part of one, and how deep it nests. */
export interface WrittenJson {
  text: string
  depth: number
}

export interface BatchPutItem extends WriteConditions {
  key: string
  json: string
  depth: number
  ttlMs?: number
}

export interface BatchPutResult {
  key: string
  status: 'created' | 'ok' | 'precondition' | 'wrongtype' | 'invalid' | 'toolarge'
  version?: string
  /** Why the item's collection schema rejects it, when it does. */
  violations?: Violation[]
  /** The size the document would have had, when it is over the limit. */
  size?: number
}

/** The key a batch measures a document on before it replaces one: a control character keeps it from clients. */
const BATCH_SCRATCH_SUFFIX = '\u001fbatch'

/** A batch whose collections' schemas keep changing under it gives up after this many attempts. */
const MAX_BATCH_ATTEMPTS = 8

/** Bytes a new member or element at tokens adds besides its value: its name, a colon and a comma. */
function slotBytes (tokens: readonly string[]): number {
  const last = tokens.at(-1)
  return last === undefined ? 0 : Buffer.byteLength(JSON.stringify(last)) + 2
}

/** What a write of json at tokens may do to the document: add it there, or replace the whole. */
function writing (tokens: readonly string[], json: WrittenJson): Sizing {
  return tokens.length === 0
    ? { mode: 'replace', growth: storedSizeBound(json.text), depth: json.depth }
    : { mode: 'add', growth: storedSizeBound(json.text) + slotBytes(tokens), depth: tokens.length + json.depth }
}

/** The longest text a number can take in RedisJSON, for operations that change one. */
const NUMBER_BYTES = 24

function operationSizing (operations: readonly PreparedOperation[]): Sizing {
  let growth = 0
  let depth = 0
  for (const operation of operations) {
    if (operation.name === 'incr' || operation.name === 'mult') growth += NUMBER_BYTES
    else if (operation.name === 'toggle') growth += 1
    else if (operation.name === 'append') growth += Buffer.byteLength(operation.args[0])
    for (const value of operation.values) growth += storedSizeBound(value) + 1
    if (operation.values.length > 0) depth = Math.max(depth, operation.path.length + 1 + operation.valuesDepth)
  }
  return { mode: 'add', growth, depth }
}

/**
 * What a patch's values and new names may add. Copies add what they copy and moves may nest what they move
 * deeper, which only the script knows: it counts them as it goes.
 */
function patchSizing (operations: readonly PreparedPatchOperation[]): Sizing {
  let growth = 0
  let depth = 0
  for (const operation of operations) {
    if (operation.value !== undefined) growth += storedSizeBound(operation.value) + slotBytes(operation.path)
    else if (operation.op === 'move') growth += slotBytes(operation.path)
    if (operation.value !== undefined) depth = Math.max(depth, operation.path.length + operation.valueDepth)
  }
  return { mode: 'add', growth, depth }
}

const KEEP: Sizing = { mode: 'keep' }

export function documentWrites (context: StoreContext) {
  function run<Op, V> (script: GuardedScript<Op, V>, address: DocumentAddress, options: WriteOptions,
    extra: Op, sizing: Sizing, validation: Validation = 'result'): Promise<DocumentReply<V>> {
    const head = { ifMatch: options.ifMatch, ifNoneMatch: options.ifNoneMatch, wantValue: options.wantValue, ttl: options.ttlMs }
    return guardedWrite(context, script, address, head, extra, validation, sizing)
  }

  function resultOf (reply: DocumentReply<string>, address: DocumentAddress): WriteResult {
    const { status, version, value, expiresAt } = succeeded(reply, address)
    const result: WriteResult = { created: status === 'created' }
    if (version) result.version = version
    if (value !== undefined) result.json = value
    if (expiresAt) result.expiresAt = expiresAt
    return result
  }

  return {
    /** Sets the whole document, or the value at a location whose parent exists. */
    async put (address: DocumentAddress, json: WrittenJson, options: WriteOptions): Promise<WriteResult> {
      const validation = address.tokens.length === 0 ? { document: json.text } : 'result'
      return resultOf(await run(putScript, address, options, { value: json.text }, writing(address.tokens, json), validation), address)
    },

    /** Applies an RFC 7396 merge patch at a location. */
    async merge (address: DocumentAddress, patch: WrittenJson & { value: unknown }, options: WriteOptions) {
      const isObject = typeof patch.value === 'object' && patch.value !== null && !Array.isArray(patch.value)
      const sizing: Sizing = {
        mode: 'add', growth: storedSizeBound(patch.text) + slotBytes(address.tokens), depth: address.tokens.length + patch.depth
      }
      return resultOf(await run(mergeScript, address, options, { patch: patch.text, patchIsObject: isObject }, sizing), address)
    },

    /** Removes the document, or the value at a location. */
    async remove (address: DocumentAddress, conditions: WriteConditions) {
      const whole = address.tokens.length === 0
      const sizing: Sizing = whole ? KEEP : { mode: 'add', growth: 0, depth: 0 }
      return resultOf(await run(deleteScript, address, withoutValue(conditions), {}, sizing, whole ? 'never' : 'result'), address)
    },

    /** Applies a JSON Patch (RFC 6902) at a location: every operation, or none. */
    async jsonPatch (address: DocumentAddress, operations: readonly PreparedPatchOperation[], options: WriteOptions) {
      const extra = {
        operations: operations.map((operation) => ({
          name: operation.op, invalid: operation.invalid ?? '', value: operation.value ?? '', path: operation.path, from: operation.from ?? [],
          pathPointer: feedPointer(operation.path), fromPointer: feedPointer(operation.from ?? [])
        }))
      }
      const reply = await run(jsonPatchScript, address, options, extra, patchSizing(operations))
      if (reply.status === 'failed') {
        const { index } = reply
        const failed = operations[index]!
        throw withExtensions(
          new PatchFailedError(`Operation ${index} (${failed.op} at "${failed.pathText}") failed: ${reply.reason}`),
          { operation: index, path: failed.pathText })
      }
      return resultOf(reply, address)
    },

    /** Applies operations in order, atomically; answers each one's result as JSON text. */
    async operate (address: DocumentAddress, operations: readonly PreparedOperation[], options: WriteOptions) {
      const extra = {
        operations: operations.map(({ name, path, args: [a, b, c], values }) => ({ name, path, a, b, c, values, pointer: feedPointer(path) }))
      }
      const reply = await run(operationsScript, address, withoutValue(options, options.ttlMs), extra, operationSizing(operations))
      if (reply.status === 'failed') throw operationFailure(reply, operations, address)
      const done = succeeded(reply, address)
      return withRecord({ results: done.value ?? [] }, recordOf(done))
    },

    /** Reads (ttlMs undefined), sets or removes (0) a whole document's time to live. */
    async expiry (key: string, ttlMs: number | undefined, conditions: WriteConditions): Promise<VersionRecord> {
      const address = { key, tokens: [] }
      return recordOf(succeeded(await run(expiryScript, address, withoutValue(conditions, ttlMs), {}, KEEP, 'never'), address))
    },

    /**
     * Writes whole documents, each item succeeding or failing on its own; an item its collection's schema
     * rejects is not written. On one Redis the batch is one atomic step; on a cluster, one per hash slot.
     */
    async putMany (items: readonly BatchPutItem[]): Promise<BatchPutResult[]> {
      const budget = context.validation.budget()
      const results = new Array<BatchPutResult>(items.length)
      let pending = items.map((_, index) => index)
      for (let attempt = 0; attempt < MAX_BATCH_ATTEMPTS && pending.length > 0; attempt++) {
        const batch = pending.map((index) => items[index]!)
        const rules = await Promise.all(batch.map((item) => context.rules.rulesFor(item.key)))
        const violations = await batchViolations(context, batch, rules, budget)
        const confirmed = await Promise.all(batch.map((item, position) =>
          violations[position] ? context.rules.confirm(item.key, rules[position]!) : true))
        if (confirmed.includes(false)) continue
        const valid: ValidItem[] = []
        pending.forEach((index, position) => {
          const rejected = violations[position]
          if (rejected) results[index] = { key: items[index]!.key, status: 'invalid', violations: rejected }
          else valid.push({ index, item: items[index]!, rules: rules[position]! })
        })
        const groups = groupsBySlot(valid.map(({ item }) => context.keyPrefix + item.key), context.redis.isCluster)
          .map((group) => group.map((position) => valid[position]!))
        const replies = valid.length === 0 ? [] : await Promise.all(groups.map((group) => putGroup(context, group)))
        pending = []
        groups.forEach((group, position) => {
          const reply = replies[position]!
          if (reply.status === 'schemachanged') {
            for (const { index, item } of group) {
              context.rules.forget(item.key)
              pending.push(index)
            }
            return
          }
          group.forEach(({ index, item }, offset) => {
            results[index] = { key: item.key, ...reply.items[offset]! }
          })
        })
      }
      if (pending.length > 0) throw new WriteContendedError(items[pending[0]!]!.key)
      return results
    }
  }
}

interface ValidItem {
  index: number
  item: BatchPutItem
  rules: WriteRules
}

/** Writes items of one hash slot in one step: their results, or 'schemachanged' when nothing was written. */
async function putGroup (context: StoreContext, group: readonly ValidItem[]): Promise<BatchReply> {
  const documentKeys = group.map(({ item }) => documentKeysOf(context, item.key))
  const [mirror, scratch, log] = derivedKeysOf(context, group[0]!.item.key, [], [MIRROR_SUFFIX, BATCH_SCRATCH_SUFFIX, LOG_SUFFIX])
  const keys = { mirror: schemaMirror(context, mirror!), scratch: scratch!, log: logKey(context, log!), documents: documentKeys.map(([doc, ver]) => ({ doc, ver })) }
  const items = group.map(({ item, rules }) => ({
    ifMatch: item.ifMatch, ifNoneMatch: item.ifNoneMatch, ttl: item.ttlMs, collection: rules.collection ?? '', guard: rules.guard,
    value: item.json, size: storedSizeBound(item.json), depth: item.depth
  }))
  return await write(context, group[0]!.item.key, documentKeys.flat(),
    batchPutScript.run(context.writer, keys, {
      maxBytes: context.limits.documentBytes,
      ...eventLogBoundsOf(context),
      items
    }))
}

/** Each item's violations of its collection's schema, all checked in one job of a validation worker. */
async function batchViolations (context: StoreContext, items: readonly BatchPutItem[], rules: readonly WriteRules[],
  budget: ValidationBudget): Promise<Array<Violation[] | undefined>> {
  const checked = items.flatMap((item, index) => {
    const schema = rules[index]!.schema
    return schema ? [{ index, request: { schema, document: item.json } }] : []
  })
  const { results } = await context.validation.validate(checked.map(({ request }) => request), budget)
  const violations: Array<Violation[] | undefined> = items.map(() => undefined)
  checked.forEach(({ index }, position) => { violations[index] = results[position] })
  return violations
}

function operationFailure ({ index, reason, detail }: { index: number, reason: string, detail: string },
  operations: readonly PreparedOperation[], address: DocumentAddress) {
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
