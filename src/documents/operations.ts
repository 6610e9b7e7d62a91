import { UnaddressableError, UnstorableJsonError, withExtensions } from '../errors.js'
import type { JsonBody } from './json-body.js'
import { nestingDepth } from './json-body.js'
import { parsePointer, unwritableToken } from './pointer.js'
import { RawJson, type RawNode } from './raw-json.js'
import type { PreparedOperation } from './store/index.js'

interface OperationBody {
  op: string
  path?: string
  by?: number
  value?: unknown
  values?: unknown[]
  index?: number
  start?: number
  stop?: number
}

/**
 * Turns a POST body (one operation or a list, already schema-valid) into operations for the store:
 * pointers joined to the URL's base pointer, JSON arguments as their exact source text.
 */
export function prepareOperations (body: JsonBody, base: readonly string[], maxDepth: number): PreparedOperation[] {
  const raw = new RawJson(body.text)
  const single = !Array.isArray(body.value)
  const operations = (single ? [body.value] : body.value) as OperationBody[]
  const nodes = single ? [raw.root] : raw.items(raw.root)
  return operations.map((operation, index) => {
    const node = nodes[index]
    const path = [...base, ...parsePointer(operation.path ?? '')!]
    const fail = (error: Error) => withExtensions(error, { operation: index })
    const unaddressable = unwritableToken(path)
    if (unaddressable !== undefined) throw fail(new UnaddressableError(unaddressable))
    const valuesDepth = Math.max(0, ...(operation.values ?? []).map(nestingDepth))
    if (path.length + 1 + valuesDepth > maxDepth) {
      throw fail(new UnstorableJsonError(`Operation ${index} would nest the document deeper than ${maxDepth} levels`))
    }
    return {
      name: operation.op,
      path,
      args: argumentsOf(operation, raw, node),
      values: raw.items(raw.member(node, 'values')).map((value) => raw.slice(value)),
      valuesDepth
    }
  })
}

function argumentsOf (operation: OperationBody, raw: RawJson, node: RawNode | undefined): [string, string, string] {
  const text = (name: string) => raw.memberText(node, name) ?? ''
  const number = (value: number | undefined) => value === undefined ? '' : String(value)
  switch (operation.op) {
    case 'incr':
    case 'mult':
      return [text('by'), '', '']
    case 'append':
      return [text('value'), '', '']
    case 'insert':
    case 'pop':
      return [number(operation.index), '', '']
    case 'trim':
      return [number(operation.start), number(operation.stop), '']
    case 'indexOf':
      return [text('value'), number(operation.start ?? (operation.stop === undefined ? undefined : 0)), number(operation.stop)]
    default:
      return ['', '', '']
  }
}
