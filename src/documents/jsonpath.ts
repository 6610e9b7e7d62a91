/**
 * Screening of client JSONPath expressions before RedisJSON sees them: RedisJSON crashes on numbers
 * that overflow 64 bits, and nested recursive descents multiply the work over a document.
 */

const MAX_RECURSIVE_DESCENTS = 2
const LONGEST_NUMBER = 15

/** Why an expression is refused, or undefined when it may be forwarded. */
export function jsonPathProblem (expression: string): string | undefined {
  if (!expression.startsWith('$')) return 'A JSONPath starts with "$"'
  let quote: string | undefined
  let digits = 0
  let descents = 0
  for (let index = 0; index < expression.length; index++) {
    const char = expression[index]!
    if (quote) {
      if (char === '\\') index++
      else if (char === quote) quote = undefined
      continue
    }
    if (char === '"' || char === "'") {
      quote = char
      digits = 0
      continue
    }
    digits = char >= '0' && char <= '9' ? digits + 1 : 0
    if (digits > LONGEST_NUMBER) return `Numbers in a JSONPath have at most ${LONGEST_NUMBER} digits`
    if (char === '.' && expression[index + 1] === '.') {
      descents++
      index++
      if (descents > MAX_RECURSIVE_DESCENTS) return `A JSONPath has at most ${MAX_RECURSIVE_DESCENTS} recursive descents ("..")`
    }
  }
  return quote ? 'A quoted name is not closed' : undefined
}
