import { limitExceeded, SchemaViolationError, WriteContendedError, withExtensions } from '../../errors.js'
import type { LuaScript } from '../../redis/lua-script.js'
import type { WriteRules } from '../../collections/rules.js'
import { MIRROR_SUFFIX } from '../../collections/storage.js'
import type { ValidationBudget } from '../../collections/validation-pool.js'
import type { SchemaSource } from '../../collections/validation-protocol.js'
import type { Violation } from '../../collections/validator.js'
import { pointerArgs, type DocumentAddress } from '../pointer.js'
import { call, keysOf, schemaMirror, screenDepth, tooCostly, write, type ScriptReply, type StoreContext } from './context.js'

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

const COPY_SUFFIX = '\u001fcopy'

/** A write script run behind the write guard, validated against the collection's schema when it has one. */
export async function guardedWrite (context: StoreContext, script: LuaScript, address: DocumentAddress,
  head: readonly string[], extra: readonly string[], validation: Validation, sizing: Sizing): Promise<ScriptReply> {
  screenDepth(address)
  const write: GuardedWrite = {
    context, script, address, head, extra, validation, sizing: sizingArgs(context, sizing), budget: context.validation.budget()
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const rules = validation === 'never' ? context.rules.unguarded : await context.rules.rulesFor(address.key)
    const reply = rules.schema && validation === 'result'
      ? await context.validatedWrites(address.key, () => writeOnce(write, rules))
      : await writeOnce(write, rules)
    if (reply[0] === 'schemachanged') context.rules.forget(address.key)
    else if (reply[0] !== 'stale') return checkCost(context, address.key, reply)
  }
  throw new WriteContendedError(address.key)
}

function sizingArgs ({ limits }: StoreContext, sizing: Sizing): string[] {
  const known = (value: number | undefined) => value === undefined ? '' : String(value)
  const [growth, depth] = sizing.mode === 'keep' ? ['', ''] : [known(sizing.growth), known(sizing.depth)]
  return [growth, depth, sizing.mode, String(limits.documentBytes), String(limits.workBytes)]
}

/** A write script's answer, unless it stopped at a cost limit: then the 422 naming that limit. */
export function checkCost (context: StoreContext, key: string, reply: ScriptReply): ScriptReply {
  const { limits } = context
  if (reply[0] === 'toolarge') {
    throw limitExceeded('MAX_DOCUMENT_BYTES', limits.documentBytes,
      `The write would make document "${key}" ${String(reply[1])} bytes long; documents hold at most ${limits.documentBytes}`)
  }
  if (reply[0] === 'toocostly') throw tooCostly(context)
  return reply
}

interface GuardedWrite {
  context: StoreContext
  script: LuaScript
  address: DocumentAddress
  head: readonly string[]
  extra: readonly string[]
  validation: Validation
  sizing: string[]
  /** Worker time the request may still spend validating, over every attempt. */
  budget: ValidationBudget
}

/** One attempt: preview and validate when the rules ask for it, then write unless the document moved on. */
async function writeOnce ({ context, script, address, head, extra, validation, sizing, budget }: GuardedWrite,
  rules: WriteRules): Promise<ScriptReply> {
  const [doc, ver, work, scratch, copy, mirror] = keysOf(context, address.key, [COPY_SUFFIX], [MIRROR_SUFFIX])
  const keys = [doc!, ver!, work!, scratch!, schemaMirror(context, mirror!), copy!]
  const exec = (base: string, preview: boolean) => {
    const reply = script.run<ScriptReply>(preview ? context.redis : context.writer, keys,
      [...head, ...pointerArgs(address.tokens, true), rules.collection ?? '', rules.guard, base, preview ? '1' : '0', ...sizing, ...extra])
    return preview ? call(context, address.key, reply) : write(context, address.key, keys.slice(0, 2), reply)
  }
  let base = ''
  if (rules.schema && validation === 'result') {
    const preview = await exec('', true)
    if (preview[0] !== 'preview') return preview
    const [, , seenBase, document] = preview as unknown as [string, string, string, string | null]
    const violations = document ? await violationsOf(context, rules.schema, document, budget) : undefined
    if (violations) throw violationError(rules, address.key, violations)
    base = seenBase
  } else if (rules.schema && typeof validation === 'object') {
    const violations = await violationsOf(context, rules.schema, validation.document, budget)
    if (violations) {
      // A rejection must come from the current schema: these rules may predate a change.
      if (!await context.rules.confirm(address.key, rules)) return ['schemachanged']
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
