/*
 * What a write's feed entry says, and what it means at one location. Pure: no fastify, no Redis.
 * A change is an RFC 6902 operation (add, replace or remove) at a pointer of the whole document; the
 * scripts never record one that moves array elements (they replace the array whole instead), so a change
 * never alters what a pointer outside its own path names.
 */
import { formatPointer, parsePointer } from '../documents/pointer.js'

export interface Change {
  op: 'add' | 'replace' | 'remove'
  path: string
  value?: unknown
}

/** A change with its pointer parsed. */
interface ParsedChange {
  op: Change['op']
  tokens: string[]
  value?: unknown
}

/**
 * What a subscriber at a location is sent for one entry: a patch relative to the location, the location's
 * whole new value, its removal, or nothing (the entry changed other places).
 */
export type LocationEvent =
  | { kind: 'patch', patch: Change[] }
  | { kind: 'put', value: unknown }
  | { kind: 'delete' }
  | { kind: 'none' }

/** No value: a member or element that is not there. */
export const ABSENT = Symbol('absent')

/** The value at tokens inside value, or ABSENT. Digits index arrays; '-' names nothing; only own members count. */
export function valueAt (value: unknown, tokens: readonly string[]): unknown {
  let current = value
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= current.length) return ABSENT
      current = current[Number(token)]
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token]
    } else {
      return ABSENT
    }
  }
  return current
}

/** Applies one non-moving change in place to a container value; answers the new root. */
function applyParsed (root: unknown, change: ParsedChange): unknown {
  if (change.tokens.length === 0) return change.op === 'remove' ? ABSENT : change.value
  const parent = valueAt(root, change.tokens.slice(0, -1))
  const last = change.tokens.at(-1)!
  if (Array.isArray(parent)) {
    if (change.op !== 'remove') parent[Number(last)] = change.value
    return root
  }
  if (typeof parent !== 'object' || parent === null) throw new Error(`No container at ${change.tokens.join('/')}`)
  if (change.op === 'remove') Reflect.deleteProperty(parent, last)
  else (parent as Record<string, unknown>)[last] = change.value
  return root
}

function parse (change: Change): ParsedChange {
  const tokens = parsePointer(change.path)
  if (tokens === undefined) throw new Error(`Not a JSON pointer: ${change.path}`)
  return change.op === 'remove' ? { op: change.op, tokens } : { op: change.op, tokens, value: change.value }
}

/** The document after an entry's changes (undefined: no document). The changes' values are taken, not copied. */
export function applyChanges (document: unknown, changes: readonly Change[]): unknown {
  let root: unknown = document === undefined ? ABSENT : document
  for (const change of changes) root = applyParsed(root, parse(change))
  return root === ABSENT ? undefined : root
}

/** Whether tokens start with prefix (a pointer at or below another). */
export function startsWith (tokens: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= tokens.length && prefix.every((token, index) => tokens[index] === token)
}

/**
 * What an entry's changes mean at a location (tokens): changes below it become a patch relative to it;
 * a change at or above it gives its whole new value (later changes below it applied to that value), or
 * its removal; other changes are none of its business. Given the whole document the changes made
 * (`whole`, recorded when they are longer than it), a patch longer than the location's new value is sent
 * as that value instead.
 */
export function eventAt (location: readonly string[], changes: readonly Change[], whole?: unknown): LocationEvent {
  const patch: Change[] = []
  let value: unknown
  let replaced = false
  for (const change of changes.map(parse)) {
    if (change.tokens.length > location.length && startsWith(change.tokens, location)) {
      const relative: ParsedChange = { ...change, tokens: change.tokens.slice(location.length) }
      if (replaced) value = value === ABSENT ? ABSENT : applyParsed(value, relative)
      else patch.push(withPath(relative))
    } else if (startsWith(location, change.tokens)) {
      replaced = true
      value = change.op === 'remove' ? ABSENT : valueAt(change.value, location.slice(change.tokens.length))
      // Later changes below the location apply to this value: a copy keeps the entry's own intact.
      if (value !== ABSENT) value = structuredClone(value)
    }
  }
  if (replaced) return value === ABSENT ? { kind: 'delete' } : { kind: 'put', value }
  if (patch.length === 0) return { kind: 'none' }
  if (whole !== undefined) {
    const now = valueAt(whole, location)
    if (now !== ABSENT && JSON.stringify(now).length < JSON.stringify(patch).length) return { kind: 'put', value: now }
  }
  return { kind: 'patch', patch }
}

function withPath ({ op, tokens, value }: ParsedChange): Change {
  const path = formatPointer(tokens)
  return op === 'remove' ? { op, path } : { op, path, value }
}
