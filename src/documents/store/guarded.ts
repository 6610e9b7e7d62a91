import { limitExceeded, SchemaViolationError, WriteContendedError, withExtensions } from '../../errors.js'
import type { WriteRules } from '../../collections/rules.js'
import { MIRROR_SUFFIX } from '../../collections/storage.js'
import type { ValidationBudget } from '../../collections/validation-pool.js'
import type { SchemaSource } from '../../collections/validation-protocol.js'
import type { Violation } from '../../collections/validator.js'
import type { DocumentAddress } from '../pointer.js'
import type { GuardedScript, WriteFeed, WriteGuard, WriteHead, WriteKeys } from '../scripts/guarded-write.js'
import type { DocumentReply } from '../scripts/protocol.js'
import {
  call, derivedKeysOf, eventLogBoundsOf, LOG_SUFFIX, logKey, feedPointer, schemaMirror, screenDepth, tooCostly, VERSION_SUFFIX, write, type StoreContext
} from './context.js'

/**
 * How a write's result is checked against its collection's schema: 'result' previews the write and
 * validates the whole document it would leave; `{ document }` validates a document that replaces the
 * whole of the current one (no preview needed); 'never' is for writes that cannot break a schema
 * (removing or expiring a whole document).
 */
export type Validation = 'result' | { document: string } | 'never'

/**
 * What a write may do to its document's size and depth, for the size limit and the bounds its version
 * record keeps: `add` at most `growth` bytes of text (undefined: unknown, so the script measures) and a
 * nesting of `depth`; `replace` the whole document by one of that size bound and depth; `keep` for writes
 * that cannot grow the document (removing or expiring it whole).
 */
export type Sizing =
  | { mode: 'add' | 'replace', growth: number | undefined, depth: number | undefined }
  | { mode: 'keep' }

/** Attempts before a write that keeps meeting concurrent changes gives up with 409. */
const MAX_ATTEMPTS = 32

/** Suffixes of a write's keys beside its document: its version record, two scratch keys, the guard's copy. */
const WRITE_SUFFIXES = [VERSION_SUFFIX, '\u001fwork', '\u001fscratch', '\u001fcopy']

/** The keys of a write of the document at key. */
function writeKeysOf (context: StoreContext, key: string): WriteKeys {
  const [ver, work, scratch, copyKey, mirror, log] = derivedKeysOf(context, key, WRITE_SUFFIXES, [MIRROR_SUFFIX, LOG_SUFFIX])
  return {
    doc: context.keyPrefix + key,
    ver: ver!,
    work: work!,
    scratch: scratch!,
    mirror: schemaMirror(context, mirror!),
    copyKey: copyKey!,
    log: logKey(context, log!)
  }
}

/** What a write at tokens tells the event log: where it is, and the log's bounds. */
function feedOf (context: StoreContext, tokens: readonly string[]): WriteFeed {
  return { location: feedPointer(tokens), ...eventLogBoundsOf(context) }
}

/** A write script run behind the write guard, validated against the collection's schema when it has one. */
export async function guardedWrite<Op, V> (context: StoreContext, script: GuardedScript<Op, V>, address: DocumentAddress,
  head: WriteConditionArgs, extra: Op, validation: Validation, sizing: Sizing): Promise<DocumentReply<V>> {
  screenDepth(address)
  const write: GuardedWrite<Op, V> = {
    context, script, address, head, extra, validation, sizing: sizingArgs(context, sizing), budget: context.validation.budget()
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const rules = validation === 'never' ? context.rules.unguarded : await context.rules.rulesFor(address.key)
    const reply = rules.schema && validation === 'result'
      ? await context.validatedWrites(address.key, () => writeOnce(write, rules))
      : await writeOnce(write, rules)
    if (reply.status === 'schemachanged') context.rules.forget(address.key)
    else if (reply.status !== 'stale') return checkCost(context, address.key, reply)
  }
  throw new WriteContendedError(address.key)
}

/** What a write takes first, but its location: preconditions, whether to answer the value, ttl. */
export type WriteConditionArgs = Omit<WriteHead, 'tokens'>

type SizingArgs = Pick<WriteGuard, 'growth' | 'depthAfter' | 'sizing' | 'maxBytes' | 'maxWork'>

function sizingArgs ({ limits }: StoreContext, sizing: Sizing): SizingArgs {
  const bounds = sizing.mode === 'keep' ? { growth: undefined, depthAfter: undefined } : { growth: sizing.growth, depthAfter: sizing.depth }
  return { ...bounds, sizing: sizing.mode, maxBytes: limits.documentBytes, maxWork: limits.workBytes }
}

/** A write script's answer, unless it stopped at a cost limit: then the 422 naming that limit. */
export function checkCost<V> (context: StoreContext, key: string, reply: DocumentReply<V>): DocumentReply<V> {
  const { limits } = context
  if (reply.status === 'toolarge') {
    throw limitExceeded('MAX_DOCUMENT_BYTES', limits.documentBytes,
      `The write would make document "${key}" ${reply.size} bytes long; documents hold at most ${limits.documentBytes}`)
  }
  if (reply.status === 'toocostly') throw tooCostly(context)
  return reply
}

interface GuardedWrite<Op, V> {
  context: StoreContext
  script: GuardedScript<Op, V>
  address: DocumentAddress
  head: WriteConditionArgs
  extra: Op
  validation: Validation
  sizing: SizingArgs
  /** Worker time the request may still spend validating, over every attempt. */
  budget: ValidationBudget
}

/** One attempt: preview and validate when the rules ask for it, then write unless the document moved on. */
async function writeOnce<Op, V> ({ context, script, address, head, extra, validation, sizing, budget }: GuardedWrite<Op, V>,
  rules: WriteRules): Promise<DocumentReply<V>> {
  const keys = writeKeysOf(context, address.key)
  const feed = feedOf(context, address.tokens)
  const exec = (base: string, previewing: boolean) => {
    const reply = script.run(previewing ? context.redis : context.writer, keys, {
      ...head, tokens: address.tokens, ...sizing, ...feed, ...extra, collection: rules.collection ?? '', schemaGuard: rules.guard, base, previewing
    })
    return previewing ? call(context, address.key, reply) : write(context, address.key, [keys.doc, keys.ver], reply)
  }
  let base = ''
  if (rules.schema && validation === 'result') {
    const preview = await exec('', true)
    if (preview.status !== 'preview') return preview
    const violations = preview.document ? await violationsOf(context, rules.schema, preview.document, budget) : undefined
    if (violations) throw violationError(rules, address.key, violations)
    base = preview.base
  } else if (rules.schema && typeof validation === 'object') {
    const violations = await violationsOf(context, rules.schema, validation.document, budget)
    if (violations) {
      // A rejection must come from the current schema: these rules may predate a change.
      if (!await context.rules.confirm(address.key, rules)) return { status: 'schemachanged' }
      throw violationError(rules, address.key, violations)
    }
  }
  return exec(base, false)
}

/** The 422 of a document its collection's schema rejects. */
function violationError (rules: WriteRules, key: string, violations: Violation[]) {
  return withExtensions(
    new SchemaViolationError(`Document "${key}" would not match the schema of collection "${rules.collection}"`),
    { collection: rules.collection, errors: violations.map((violation) => ({ in: 'document', ...violation })) })
}

/** A document's violations of a schema, checked in a validation worker within the request's budget. */
async function violationsOf (context: StoreContext, schema: SchemaSource, document: string,
  budget: ValidationBudget): Promise<Violation[] | undefined> {
  const { results } = await context.validation.validate([{ schema, document }], budget)
  return results[0]
}
