/** An RFC 6902 operation as live streams send them. */
export interface StreamOperation { op: 'add' | 'replace' | 'remove', path: string, value?: unknown }

function tokensOf (path: string): string[] {
  if (path === '') return []
  if (!path.startsWith('/')) throw new Error(`Not a JSON Pointer: ${path}`)
  return path.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
}

function indexIn (array: unknown[], token: string, adding: boolean): number {
  if (adding && token === '-') return array.length
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`Not an array index: ${token}`)
  const index = Number(token)
  if (index > array.length || (!adding && index === array.length)) throw new Error(`Index out of range: ${token}`)
  return index
}

/** The value at `pointer` in `document`; undefined when there is none. */
export function valueAt (document: unknown, pointer: string): unknown {
  let value = document
  for (const token of tokensOf(pointer)) {
    if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(token)) value = value[Number(token)]
    else if (isObject(value) && Object.hasOwn(value, token)) value = value[token]
    else return undefined
  }
  return value
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Applies `add`, `replace` and `remove` (RFC 6902) to `document`, which it may change in place; returns the
 * result. Throws when an operation cannot apply, as the RFC says (a missing parent, an index out of range).
 */
export function applyPatch (document: unknown, operations: readonly StreamOperation[]): unknown {
  for (const { op, path, value } of operations) {
    const tokens = tokensOf(path)
    if (tokens.length === 0) {
      if (op === 'remove') document = undefined
      else document = structuredClone(value)
      continue
    }
    let parent = document
    for (const token of tokens.slice(0, -1)) {
      if (Array.isArray(parent)) parent = parent[indexIn(parent, token, false)]
      else if (isObject(parent) && Object.hasOwn(parent, token)) parent = parent[token]
      else throw new Error(`No value at ${path}`)
    }
    const last = tokens.at(-1)!
    if (Array.isArray(parent)) {
      const index = indexIn(parent, last, op === 'add')
      if (op === 'add') parent.splice(index, 0, structuredClone(value))
      else if (op === 'replace') parent[index] = structuredClone(value)
      else parent.splice(index, 1)
    } else if (isObject(parent)) {
      if (op !== 'add' && !Object.hasOwn(parent, last)) throw new Error(`No value at ${path}`)
      if (op === 'remove') delete parent[last]
      // defineProperty: a member named __proto__ is a member, as JSON.parse makes it, not the prototype.
      else Object.defineProperty(parent, last, { value: structuredClone(value), writable: true, enumerable: true, configurable: true })
    } else {
      throw new Error(`No container at ${path}`)
    }
  }
  return document
}
