/*
 * What a location stream knows of its location's value, and what an entry does to it. Pure: no fastify,
 * no Redis. A stream that knows the value sends an event only when an entry changes it; one that does not
 * (resumed from a position whose value could not be worked out) sends what the entry says.
 */
import { parsePointer } from '../documents/pointer.js'
import { ABSENT, eventAt, startsWith, valueAt, type Change, type LocationEvent } from './changes.js'

/** A place whose value a later change below it altered: read by applying those changes to a copy. */
const STALE = Symbol('stale')
type Tree = unknown

/** A change a value holds unapplied: the value at tokens replaced (ABSENT: removed). */
interface Overlay {
  tokens: readonly string[]
  value: unknown
}

/** Changes a value gathers before they are applied to a copy of it: bounds each lookup's work and the value's memory. */
const MAX_OVERLAYS = 256

/**
 * A location's value at one position of its stream: a parsed value never changed in place, and the changes
 * made since, applied to a copy of it only every MAX_OVERLAYS changes (or when its text is asked for). So a
 * write costs a stream what the write changed and what it compares (the place it writes), never the value's
 * size or width, and every stream holding a value may keep it.
 */
export class LocationValue {
  #text: string | null | undefined
  #applied: Tree | undefined

  /** length: the length of its JSON text, as JSON.stringify writes it (kept through every change). */
  private constructor (private readonly base: Tree, private readonly overlays: readonly Overlay[], readonly length: number, text?: string | null) {
    this.#text = text
  }

  /** The value read as JSON text (undefined: absent). */
  static read (json: string | undefined): LocationValue {
    return LocationValue.of(json === undefined ? undefined : JSON.parse(json))
  }

  /** The value as an entry set it (undefined: absent). The value is the entry's, and never changed. */
  static of (value: unknown): LocationValue {
    if (value === undefined) return new LocationValue(ABSENT, [], 0, null)
    const text = JSON.stringify(value)
    return new LocationValue(value, [], text.length, text)
  }

  get present (): boolean {
    return this.base !== ABSENT
  }

  /** Its JSON text as JSON.stringify writes its value (two equal values have equal texts), or null when absent. */
  text (): string | null {
    if (this.#text === undefined) this.#text = JSON.stringify(this.value())
    return this.#text
  }

  /** Its value (undefined: absent), the changes applied; never to be changed. */
  value (): unknown {
    if (this.base === ABSENT) return undefined
    if (this.overlays.length === 0) return this.base
    this.#applied ??= applied(this.base, this.overlays)
    return this.#applied
  }

  /**
   * The value after a patch relative to it (operations that move no array element), and whether the patch
   * changed it; undefined when the patch does not fit the value (its stream lost track of it).
   */
  patched (patch: readonly Change[]): { after: LocationValue, changed: boolean } | undefined {
    if (this.base === ABSENT) return undefined
    let base = this.base
    let overlays = this.overlays
    let length = this.length
    let changed = false
    for (const { op, path, value } of patch) {
      const tokens = parsePointer(path)
      if (tokens === undefined || tokens.length === 0) return undefined
      const next = op === 'remove' ? ABSENT : value
      if (!fits(shapeAt(base, overlays, tokens.slice(0, -1)), tokens.at(-1)!, next)) return undefined
      let now = lookup(base, overlays, tokens)
      if (now === STALE) now = current(base, overlays, tokens)
      if (now === STALE) return undefined
      if (now === next) continue
      const [before, after] = [now === ABSENT ? '' : JSON.stringify(now), next === ABSENT ? '' : JSON.stringify(next)]
      if (now !== ABSENT && next !== ABSENT) {
        if (before === after) continue
        length += after.length - before.length
      } else {
        // A member added or removed: its name, colon and value, and a comma unless it is (or was) the only one.
        const alone = !hasOtherMember(base, overlays, tokens)
        length += (now === ABSENT ? 1 : -1) * (JSON.stringify(tokens.at(-1)).length + 1 + (after || before).length + (alone ? 0 : 1))
      }
      changed = true
      overlays = [...overlays, { tokens, value: next }]
      if (overlays.length >= MAX_OVERLAYS) {
        base = applied(base, overlays)
        if (base === STALE) return undefined
        overlays = []
      }
    }
    return { after: changed ? new LocationValue(base, overlays, length) : this, changed }
  }
}

/** The value at tokens inside what an overlay set (tokens at or below its own), or ABSENT. */
function within (overlay: Overlay, tokens: readonly string[]): unknown {
  return overlay.value === ABSENT ? ABSENT : valueAt(overlay.value, tokens.slice(overlay.tokens.length))
}

/** The index of the newest overlay that set tokens or a place holding it (-1: none). */
function newestAbove (overlays: readonly Overlay[], tokens: readonly string[]): number {
  let index = overlays.length - 1
  while (index >= 0 && !startsWith(tokens, overlays[index]!.tokens)) index--
  return index
}

/** The value at tokens as the overlay that set it or a place holding it left it (undefined: none, the base's). */
function valueFrom (base: Tree, above: Overlay | undefined, tokens: readonly string[]): unknown {
  return above === undefined ? valueAt(base, tokens) : within(above, tokens)
}

/** The value at tokens as the overlays leave it, or STALE when a later overlay changed a place below it. */
function lookup (base: Tree, overlays: readonly Overlay[], tokens: readonly string[]): unknown {
  for (let index = overlays.length - 1; index >= 0; index--) {
    const overlay = overlays[index]!
    if (startsWith(tokens, overlay.tokens)) return within(overlay, tokens)
    if (startsWith(overlay.tokens, tokens)) return STALE
  }
  return valueAt(base, tokens)
}

/** Per object a value holds (never changed), its members' names: read once, however many changes ask. */
const membersOf = new WeakMap<object, string[]>()

/** Whether the object holding the member at tokens has another member, the overlays applied. */
function hasOtherMember (base: Tree, overlays: readonly Overlay[], tokens: readonly string[]): boolean {
  const parentTokens = tokens.slice(0, -1)
  const name = tokens.at(-1)!
  // The overlays of the object's own members, newest first, down to one that set the object (or a place above it) whole.
  const decided = new Set<string>([name])
  let index = overlays.length - 1
  for (; index >= 0; index--) {
    const overlay = overlays[index]!
    if (startsWith(parentTokens, overlay.tokens)) break
    if (overlay.tokens.length !== tokens.length || !startsWith(overlay.tokens, parentTokens)) continue
    const member = overlay.tokens.at(-1)!
    if (decided.has(member)) continue
    if (overlay.value !== ABSENT) return true
    decided.add(member)
  }
  const object = valueFrom(base, overlays[index], parentTokens)
  if (typeof object !== 'object' || object === null) return false
  let names = membersOf.get(object)
  if (names === undefined) membersOf.set(object, names = Object.keys(object))
  return names.some((member) => !decided.has(member))
}

/**
 * The value at tokens as far as its shape goes (whether it is an object, an array and how long): overlays
 * below it are left out, since they never change that.
 */
function shapeAt (base: Tree, overlays: readonly Overlay[], tokens: readonly string[]): unknown {
  return valueFrom(base, overlays[newestAbove(overlays, tokens)], tokens)
}

/** Whether a change fits its parent: a member of an object, or an element of an array replaced (never added or removed). */
function fits (parent: unknown, name: string, value: unknown): boolean {
  if (Array.isArray(parent)) return /^(0|[1-9]\d*)$/.test(name) && Number(name) < parent.length && value !== ABSENT
  return typeof parent === 'object' && parent !== null
}

/** The value at tokens with every overlay below it applied, on a copy of that place alone (STALE: they do not fit it). */
function current (base: Tree, overlays: readonly Overlay[], tokens: readonly string[]): unknown {
  const from = newestAbove(overlays, tokens)
  const start = valueFrom(base, overlays[from], tokens)
  if (start === ABSENT) return STALE
  let value: unknown = structuredClone(start)
  for (const overlay of overlays.slice(from + 1)) {
    if (!startsWith(overlay.tokens, tokens)) continue
    value = setInPlace(value, overlay.tokens.slice(tokens.length), copyOf(overlay.value))
    if (value === STALE) return STALE
  }
  return value
}

/** A copy of tree with the overlays applied, in order (STALE: one does not fit it). */
function applied (tree: Tree, overlays: readonly Overlay[]): Tree {
  let value: unknown = structuredClone(tree)
  for (const overlay of overlays) {
    value = setInPlace(value, overlay.tokens, copyOf(overlay.value))
    if (value === STALE) return STALE
  }
  return value
}

/** A value to put in a tree that later changes may alter in place: overlays and entries stay as they are. */
const copyOf = (value: unknown): unknown => value === ABSENT ? ABSENT : structuredClone(value)

/**
 * Sets the value at tokens (non-empty) inside a tree the caller owns (ABSENT: removes the member), and
 * answers the tree; STALE when no container is there. Any name is a member, `__proto__` too.
 */
function setInPlace (tree: Tree, tokens: readonly string[], value: unknown): Tree {
  const parent = valueAt(tree, tokens.slice(0, -1))
  const name = tokens.at(-1)!
  if (!fits(parent, name, value)) return STALE
  if (Array.isArray(parent)) {
    parent[Number(name)] = value
    return tree
  }
  const object = parent as Record<string, unknown>
  if (value === ABSENT) Reflect.deleteProperty(object, name)
  else Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true })
  return tree
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
  // Texts of different lengths differ: only values as long as the one before are written out to compare.
  if (before !== undefined && before.length === after.length && before.text() === after.text()) return { event: { kind: 'none' }, after: before }
  return { event, after }
}
