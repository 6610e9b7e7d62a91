/**
 * Linear scans of JSON texts that already parsed, for what JSON.parse does not tell: how many object
 * members the text writes (repeated names vanish from the parsed value), and how long RedisJSON's
 * serialisation of it can be.
 */

/** The position after the closing quote of the string whose content starts at `from`. */
function stringEnd (text: string, from: number): number {
  for (let at = from; ; at++) {
    at = text.indexOf('"', at)
    if (at === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++
    if (backslashes % 2 === 0) return at + 1
  }
}

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
