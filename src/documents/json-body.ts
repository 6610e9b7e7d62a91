import { countMembers, firstRepeatedMember } from './json-text.js'
import { formatPointer } from './pointer.js'

/**
 * Screening of JSON request bodies. The text a client sends is what gets forwarded to RedisJSON, so
 * values keep every digit RedisJSON can hold; the parse here only proves that the text is JSON which
 * RedisJSON will store faithfully and safely.
 */

export interface JsonBody {
  /** The body exactly as sent, decoded from UTF-8. */
  text: string
  /** The parsed value, for checks and for the service's own request bodies. */
  value: unknown
  /** How many arrays and objects nest in the value (0 for a scalar). */
  depth: number
}

export type BodyVerdict = { body: JsonBody } | { invalid: string } | { unstorable: string }

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** Decodes and parses a body, refusing what RedisJSON would reject, alter or choke on. */
export function screenJsonBody (bytes: Buffer, maxDepth: number): BodyVerdict {
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    return { invalid: 'The body is not valid UTF-8' }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { invalid: (error as Error).message }
  }
  const shape = { members: 0 }
  const depth = measure(value, 0, maxDepth, shape)
  if (typeof depth === 'string') return { unstorable: depth }
  // JSON.parse keeps the last of repeated member names; RFC 6902 and the service's fidelity both need them refused.
  if (shape.members !== countMembers(text)) return { invalid: repeatedMember(text) }
  return { body: { text, value, depth } }
}

/** Names the first repeated member name of a JSON text that has one. */
function repeatedMember (text: string): string {
  const found = firstRepeatedMember(text)
  if (!found) return 'The body repeats a member name'
  return `The object at ${JSON.stringify(formatPointer(found.at))} has the member name ${JSON.stringify(found.name)} twice`
}

/** How many arrays and objects nest in a value that already passed screening. */
export function nestingDepth (value: unknown): number {
  const depth = measure(value, 0, Number.POSITIVE_INFINITY, { members: 0 })
  return typeof depth === 'number' ? depth : 0
}

/** The nesting depth of a parsed value, or why RedisJSON cannot keep it as sent; counts its members into shape. */
function measure (value: unknown, depth: number, maxDepth: number, shape: { members: number }): number | string {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? depth : 'A number is beyond the range of a double and cannot be stored'
    case 'string':
      return value.isWellFormed() ? depth : 'A string contains an unpaired UTF-16 surrogate escape'
    case 'object': {
      if (value === null) return depth
      if (depth + 1 > maxDepth) return `The value nests deeper than ${maxDepth} levels`
      let deepest = depth + 1
      const isArray = Array.isArray(value)
      const entries = isArray ? value.entries() : Object.entries(value)
      if (!isArray) shape.members += (entries as unknown[]).length
      for (const [name, item] of entries) {
        if (typeof name === 'string' && !name.isWellFormed()) {
          return 'A member name contains an unpaired UTF-16 surrogate escape'
        }
        const found = measure(item, depth + 1, maxDepth, shape)
        if (typeof found === 'string') return found
        if (found > deepest) deepest = found
      }
      return deepest
    }
    default:
      return depth
  }
}
