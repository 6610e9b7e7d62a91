/*
 * What a location stream knows of its location's value, and what an entry does to it. Pure: no fastify,
 * no Redis. A stream that knows the value sends an event only when an entry changes it; one that does not
 * (resumed from a position whose value could not be worked out) sends what the entry says.
 */
import { parsePointer } from '../documents/pointer.js'
import { eventAt, type Change, type LocationEvent } from './changes.js'

const ABSENT = Symbol('absent')
type Tree = unknown

/** Its JSON text's length, as JSON.stringify writes a member's name. */
const nameLength = (name: string) => JSON.stringify(name).length

/**
 * A location's value at one position of its stream, parsed, with the length of its JSON text. Never changed
 * in place: a patch copies the containers along its paths and shares the rest, so that a write costs what it
 * changed (and what it compares), not the value's size, and every stream holding a value may keep it.
 */
export class LocationValue {
  #text: string | null | undefined

  private constructor (private readonly tree: Tree | typeof ABSENT, readonly length: number, text?: string | null) {
    this.#text = text
  }

  /** The value read as JSON text (undefined: absent). */
  static read (json: string | undefined): LocationValue {
    if (json === undefined) return new LocationValue(ABSENT, 0, null)
    return LocationValue.of(JSON.parse(json))
  }

  /** The value as an entry set it (undefined: absent). The value is the entry's, and never changed. */
  static of (value: unknown): LocationValue {
    if (value === undefined) return new LocationValue(ABSENT, 0, null)
    const text = JSON.stringify(value)
    return new LocationValue(value, text.length, text)
  }

  get present (): boolean {
    return this.tree !== ABSENT
  }

  /** Its JSON text as JSON.stringify writes its value (two equal values have equal texts), or null when absent. */
  text (): string | null {
    if (this.#text === undefined) this.#text = JSON.stringify(this.tree)
    return this.#text
  }

  /** Its parsed value (undefined: absent); never to be changed. */
  value (): unknown {
    return this.tree === ABSENT ? undefined : this.tree
  }

  /**
   * The value after a patch relative to it (operations that move no array element), and whether the patch
   * changed it; undefined when the patch does not fit the value (its stream lost track of it).
   */
  patched (patch: readonly Change[]): { after: LocationValue, changed: boolean } | undefined {
    let tree = this.tree
    let length = this.length
    let changed = false
    for (const { op, path, value } of patch) {
      const tokens = parsePointer(path)
      if (tree === ABSENT || tokens === undefined || tokens.length === 0) return undefined
      const step = setIn(tree, tokens, op === 'remove' ? ABSENT : value)
      if (step === undefined) return undefined
      if (step.delta === undefined) continue
      tree = step.tree
      length += step.delta
      changed = true
    }
    return { after: changed ? new LocationValue(tree, length) : this, changed }
  }
}

/**
 * The tree with the value at tokens set (ABSENT: removed), copying the containers along the way; delta is
 * how much longer its JSON text grew, undefined when nothing changed. Undefined when a container is missing.
 */
function setIn (tree: Tree, tokens: readonly string[], value: unknown): { tree: Tree, delta?: number } | undefined {
  const [token, ...rest] = tokens as [string, ...string[]]
  if (Array.isArray(tree)) {
    if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= tree.length) return undefined
    const index = Number(token)
    // Elements are never removed one by one (an array that loses one is replaced whole).
    if (rest.length === 0 && value === ABSENT) return undefined
    const inner = rest.length === 0 ? replaced(tree[index], value) : setIn(tree[index], rest, value)
    if (inner === undefined || inner.delta === undefined) return inner
    const copy = tree.slice()
    copy[index] = inner.tree
    return { tree: copy, delta: inner.delta }
  }
  if (typeof tree !== 'object' || tree === null) return undefined
  const object = tree as Record<string, unknown>
  const had = Object.hasOwn(object, token)
  if (rest.length > 0) {
    if (!had) return undefined
    const inner = setIn(object[token], rest, value)
    if (inner === undefined || inner.delta === undefined) return inner
    return { tree: withMember(object, token, inner.tree), delta: inner.delta }
  }
  if (!had) {
    if (value === ABSENT) return { tree }
    const members = Object.keys(object).length
    return { tree: withMember(object, token, value), delta: nameLength(token) + 1 + JSON.stringify(value).length + (members > 0 ? 1 : 0) }
  }
  const inner = replaced(object[token], value)
  if (inner.delta === undefined) return inner
  if (value !== ABSENT) return { tree: withMember(object, token, value), delta: inner.delta }
  const members = Object.keys(object).length
  return { tree: withMember(object, token, ABSENT), delta: -(nameLength(token) + 1 + JSON.stringify(object[token]).length + (members > 1 ? 1 : 0)) }
}

/** A value replaced by another (ABSENT: removed): the change in text length, undefined when they are equal. */
function replaced (old: unknown, value: unknown): { tree: unknown, delta?: number } {
  if (value === ABSENT) return { tree: ABSENT, delta: 0 }
  const before = JSON.stringify(old)
  const after = JSON.stringify(value)
  return before === after ? { tree: old } : { tree: value, delta: after.length - before.length }
}

/** A copy of the object with one member set (ABSENT: removed), its other members in their order; any name is a member, `__proto__` too. */
function withMember (object: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(object)) {
    if (key === name && value === ABSENT) continue
    Object.defineProperty(copy, key, { value: key === name ? value : object[key], enumerable: true, writable: true, configurable: true })
  }
  if (value !== ABSENT && !Object.hasOwn(object, name)) Object.defineProperty(copy, name, { value, enumerable: true, writable: true, configurable: true })
  return copy
}

/** What a stream sends for an entry, and what it then knows (undefined: nothing). */
export interface Translation {
  event: LocationEvent
  after: LocationValue | undefined
}

/**
 * What an entry's changes do at a location, given what the stream knew of its value before (undefined:
 * nothing). An entry that replaces the location or a place above it sends its new value only when it
 * differs from the known one, and a removal only when the value was there; a patch below it, only when it
 * changes the value: a write elsewhere sends nothing, nor one that writes what was there, whatever the
 * value's size, and a location that disappears is one `delete`.
 */
export function translate (location: readonly string[], changes: readonly Change[], whole: unknown, before: LocationValue | undefined): Translation {
  const event = eventAt(location, changes, whole)
  if (event.kind === 'patch') {
    // A patch below a location known to be absent means the stream lost track: it knows nothing from then on.
    if (before?.present !== true) return { event, after: undefined }
    const result = before.patched(event.patch)
    if (result === undefined) return { event, after: undefined }
    if (!result.changed) return { event: { kind: 'none' }, after: before }
    const { after } = result
    // A patch longer than the value it leaves (many operations on a small value): the value goes instead.
    if (JSON.stringify(event.patch).length > after.length) return { event: { kind: 'put', value: after.value() }, after }
    return { event, after }
  }
  if (event.kind === 'none') return { event, after: before }
  const after = LocationValue.of(event.kind === 'put' ? event.value : undefined)
  if (before !== undefined && before.text() === after.text()) return { event: { kind: 'none' }, after: before }
  return { event, after }
}
