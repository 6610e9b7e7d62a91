/*
 * What a location stream knows of its location's value, and what an entry does to it. Pure: no fastify,
 * no Redis. A stream that knows the value sends an event only when an entry changes it; one that does not
 * (resumed from a position whose value could not be worked out) sends what the entry says.
 */
import { applyChanges, eventAt, type Change, type LocationEvent } from './changes.js'

/** Patches a known value may gather before they are applied: bounds a stream's memory and each application's work. */
const MAX_PENDING = 64

/** Values up to this long are compared before and after every patch, so that a write of what is there sends nothing. */
const SMALL_BYTES = 4096

/**
 * A location's value at one position of its stream: JSON text (null when absent) and the patches made
 * since, applied only when the text is asked for, so following a large value costs each write its patch.
 */
export class LocationValue {
  #text: string | null | undefined

  private constructor (private readonly base: string | null, private readonly pending: readonly Change[][]) {
    if (pending.length === 0) this.#text = base === null ? null : canonical(base)
  }

  /** The value read as text (undefined: absent). */
  static read (json: string | undefined): LocationValue {
    return new LocationValue(json ?? null, [])
  }

  /** The value as an entry set it. */
  static of (value: unknown): LocationValue {
    return new LocationValue(value === undefined ? null : JSON.stringify(value), [])
  }

  /** Whether the value is short enough to compare on every write (its text worked out at about the patch's cost). */
  get small (): boolean {
    return this.base !== null && this.base.length <= SMALL_BYTES && this.pending.length === 0
  }

  get present (): boolean {
    return this.base !== null
  }

  /** Its JSON text as JSON.stringify writes it (two equal values have equal texts), or null when absent. */
  text (): string | null {
    if (this.#text === undefined) {
      const value = applyChanges(JSON.parse(this.base!), this.pending.flat())
      this.#text = value === undefined ? null : JSON.stringify(value)
    }
    return this.#text
  }

  /** The value after a patch relative to it. */
  patched (patch: Change[]): LocationValue {
    if (this.base === null) return this
    if (this.pending.length < MAX_PENDING) return new LocationValue(this.base, [...this.pending, patch])
    return new LocationValue(this.text(), [patch])
  }
}

/** What a stream sends for an entry, and what it then knows (undefined: nothing). */
export interface Translation {
  event: LocationEvent
  after: LocationValue | undefined
}

/**
 * What an entry's changes do at a location, given what the stream knew of its value before (undefined:
 * nothing). An entry that replaces the location or a place above it sends its new value only when it
 * differs from the known one, and a removal only when the value was there: a write elsewhere sends
 * nothing, and a location that disappears is one `delete`.
 */
export function translate (location: readonly string[], changes: readonly Change[], whole: unknown, before: LocationValue | undefined): Translation {
  const event = eventAt(location, changes, whole)
  if (event.kind === 'patch') {
    // A patch below a location known to be absent means the stream lost track: it knows nothing from then on.
    if (before?.present !== true) return { event, after: undefined }
    if (!before.small) return { event, after: before.patched(event.patch) }
    // A patch that rewrites what was there changes nothing: told apart where the value is small enough to compare.
    const text = before.patched(event.patch).text()
    if (text === before.text()) return { event: { kind: 'none' }, after: before }
    const after = LocationValue.read(text ?? undefined)
    // A patch longer than the value it leaves (many operations on a small value): the value goes instead.
    if (text !== null && JSON.stringify(event.patch).length > text.length) return { event: { kind: 'put', value: JSON.parse(text) }, after }
    return { event, after }
  }
  if (event.kind === 'none') return { event, after: before }
  const after = LocationValue.of(event.kind === 'put' ? event.value : undefined)
  if (before !== undefined && before.text() === after.text()) return { event: { kind: 'none' }, after: before }
  return { event, after }
}

/** JSON text as JSON.stringify writes its value. */
function canonical (json: string): string {
  return JSON.stringify(JSON.parse(json))
}
