import { UnaddressableError, UnstorableJsonError, withExtensions } from '../errors.js'
import type { JsonBody } from './json-body.js'
import { nestingDepth } from './json-body.js'
import { parsePointer, unwritableToken } from './pointer.js'
import { RawJson } from './raw-json.js'
import type { PreparedPatchOperation } from './store/index.js'

interface PatchOperationBody { op: string, path: string, from?: string, value?: unknown }

/**
 * Turns a JSON Patch body (already schema-valid) into operations for the store: pointers joined to
 * the URL's base pointer, values as their exact source text.
 */
export function preparePatch (body: JsonBody, base: readonly string[], maxDepth: number): PreparedPatchOperation[] {
  const raw = new RawJson(body.text)
  const operations = body.value as PatchOperationBody[]
  const nodes = raw.items(raw.root)
  return operations.map((operation, index) => {
    const fail = (error: Error) => withExtensions(error, { operation: index, path: operation.path })
    const path = joined(base, operation.path)
    // RFC 6902 section 4: members an operation does not define are ignored; only move and copy have a from.
    const from = operation.from === undefined || !MOVES.has(operation.op) ? undefined : joined(base, operation.from)
    const unaddressable = unwritableToken(path, true) ?? unwritableToken(from ?? [], true)
    if (unaddressable !== undefined) throw fail(new UnaddressableError(unaddressable))
    const prepared: PreparedPatchOperation = { op: operation.op, path, pathText: operation.path, valueDepth: 0 }
    if (from) prepared.from = from
    if ('value' in operation) {
      prepared.valueDepth = nestingDepth(operation.value)
      if (path.length + prepared.valueDepth > maxDepth) {
        throw fail(new UnstorableJsonError(`Operation ${index} would nest the document deeper than ${maxDepth} levels`))
      }
      prepared.value = raw.memberText(nodes[index], 'value')!
    }
    if (operation.op === 'move' && from && isProperPrefix(from, path)) {
      prepared.invalid = 'a value cannot be moved into one of its own children'
    }
    return prepared
  })
}

const MOVES = new Set(['move', 'copy'])

function joined (base: readonly string[], pointer: string): string[] {
  // The schema admits only well-formed pointers.
  return [...base, ...parsePointer(pointer)!]
}

function isProperPrefix (prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length < path.length && prefix.every((token, index) => token === path[index])
}
