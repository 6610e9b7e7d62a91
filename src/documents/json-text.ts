import { stringEnd } from './raw-json.js'

/**
 * Linear scans of JSON texts that already parsed, for what JSON.parse does not tell: how many object
 * members the text writes (repeated names vanish from the parsed value), and how long RedisJSON's
 * serialisation of it can be.
 */

/** Calls visit with each stretch of the text outside strings, in order. */
function eachOutsideStrings (text: string, visit: (from: number, to: number) => void): void {
  let at = 0
  for (;;) {
    const quote = text.indexOf('"', at)
    visit(at, quote === -1 ? text.length : quote)
    if (quote === -1) return
    at = stringEnd(text, quote + 1)
  }
}

/** How many object members a JSON text writes: its colons outside strings. */
export function countMembers (text: string): number {
  let members = 0
  let colon = text.indexOf(':')
  eachOutsideStrings(text, (from, to) => {
    if (colon !== -1 && colon < from) colon = text.indexOf(':', from)
    while (colon !== -1 && colon < to) {
      members++
      colon = text.indexOf(':', colon + 1)
    }
  })
  return members
}

interface Container {
  /** Member names seen so far, for an object. */
  names?: Set<string>
  /** The next element's index, for an array. */
  index: number
  /** Where the container is in the text's value. */
  token: string
}

/** The first object member whose name its object already has, and where that object is: one pass. */
export function firstRepeatedMember (text: string): { at: string[], name: string } | undefined {
  const open: Container[] = []
  let expectName = false
  let lastName = ''
  for (let index = 0; index < text.length; index++) {
    const top = open.at(-1)
    switch (text.charCodeAt(index)) {
      case 34: {
        const end = stringEnd(text, index + 1)
        if (expectName && top?.names) {
          const quoted = text.slice(index, end)
          const name = quoted.includes('\\') ? JSON.parse(quoted) as string : quoted.slice(1, -1)
          if (top.names.has(name)) return { at: open.slice(1).map((container) => container.token), name }
          top.names.add(name)
          lastName = name
          expectName = false
        }
        index = end - 1
        break
      }
      case 123:
      case 91: {
        const token = top === undefined ? '' : top.names ? lastName : String(top.index)
        const isObject = text.charCodeAt(index) === 123
        open.push(isObject ? { names: new Set(), index: 0, token } : { index: 0, token })
        expectName = isObject
        break
      }
      case 125:
      case 93:
        open.pop()
        break
      case 44:
        if (top?.names) expectName = true
        else if (top) top.index++
        break
    }
  }
  return undefined
}

/** The longest text RedisJSON writes for one number (a double in exponent form, with its sign). */
const LONGEST_NUMBER = 24

/**
 * An upper bound of the bytes of RedisJSON's serialisation of a JSON text. RedisJSON drops whitespace and
 * writes strings with the fewest escapes, so only numbers can grow: an exponent below 16 is written out
 * (`1e15` is `1000000000000000.0`), `-0` becomes `-0.0`, and integers beyond 64 bits become doubles. Each
 * place that may be such a number counts as the longest a number can be; places inside strings count
 * too, which only loosens the bound.
 */
export function storedSizeBound (text: string): number {
  return Buffer.byteLength(text) +
    LONGEST_NUMBER * (occurrences(text, /[0-9.][eE]/g) + occurrences(text, /[0-9]{20,}/g)) +
    2 * occurrences(text, /-0/g)
}

function occurrences (text: string, pattern: RegExp): number {
  let count = 0
  pattern.lastIndex = 0
  while (pattern.exec(text) !== null) count++
  return count
}
