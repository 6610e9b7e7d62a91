import { SchemaViolationError, WriteContendedError, withExtensions } from '../../errors.js'
import type { LuaScript } from '../../redis/lua-script.js'
import type { WriteRules } from '../../schemas/rules.js'
import type { DocumentValidator, Violation } from '../../schemas/validator.js'
import { pointerArgs, type DocumentAddress } from '../pointer.js'
import { call, keysOf, screenDepth, write, type ScriptReply, type StoreContext } from './context.js'

/**
 * How a write's result is checked against its collection's schema: 'result' previews the write and
 * validates the whole document it would leave; `{ document }` validates a document that replaces the
 * whole of the current one (no preview needed); 'never' is for writes that cannot break a schema
 * (removing or expiring a whole document).
 */
export type Validation = 'result' | { document: string } | 'never'

/** Attempts before a write that keeps meeting concurrent changes gives up with 409. */
const MAX_ATTEMPTS = 32

const PREVIEW_SUFFIX = '\u001fpreview'

/** A write script run behind the write guard, validated against the collection's schema when it has one. */
export async function guardedWrite (context: StoreContext, script: LuaScript, address: DocumentAddress,
  head: readonly string[], extra: readonly string[], validation: Validation): Promise<ScriptReply> {
  screenDepth(address)
  const write: GuardedWrite = { context, script, address, head, extra, validation }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const rules = validation === 'never' ? context.rules.unguarded : await context.rules.rulesFor(address.key)
    const reply = rules.validate && validation === 'result'
      ? await context.validatedWrites(address.key, () => writeOnce(write, rules))
      : await writeOnce(write, rules)
    if (reply[0] === 'schemachanged') context.rules.forget(address.key)
    else if (reply[0] !== 'stale') return reply
  }
  throw new WriteContendedError(address.key)
}

interface GuardedWrite {
  context: StoreContext
  script: LuaScript
  address: DocumentAddress
  head: readonly string[]
  extra: readonly string[]
  validation: Validation
}

/** One attempt: preview and validate when the rules ask for it, then write unless the document moved on. */
async function writeOnce ({ context, script, address, head, extra, validation }: GuardedWrite,
  rules: WriteRules): Promise<ScriptReply> {
  const keys = [...keysOf(context, address.key), rules.schemaKey, context.keyPrefix + address.key + PREVIEW_SUFFIX]
  const exec = (base: string, preview: boolean) => {
    const reply = script.run<ScriptReply>(context.client, keys,
      [...head, ...pointerArgs(address.tokens, true), rules.guard, base, preview ? '1' : '0', ...extra])
    return preview ? call(context, address.key, reply) : write(context, address.key, keys.slice(0, 2), reply)
  }
  let base = ''
  if (rules.validate && validation === 'result') {
    const preview = await exec('', true)
    if (preview[0] !== 'preview') return preview
    const [, , seenBase, document] = preview as unknown as [string, string, string, string | null]
    const violations = document ? violationsOf(rules.validate, document) : undefined
    if (violations) throw violationError(rules, address.key, violations)
    base = seenBase
  } else if (rules.validate && typeof validation === 'object') {
    const violations = violationsOf(rules.validate, validation.document)
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

export function violationsOf (validate: DocumentValidator | undefined, document: string) {
  return validate?.(JSON.parse(document))
}
