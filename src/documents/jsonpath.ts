/**
 * Screening of client JSONPath expressions before RedisJSON sees them: a parse of RedisJSON's JSONPath
 * grammar that refuses what would crash or stall it, and measures what the rest may cost. RedisJSON crashes
 * on indices that overflow 64 bits and on a parse error in an expression holding a character whose low
 * byte is 0 (so whatever this accepts must parse there), compiles a regular expression anew for every
 * value a filter tests, and nested filters, recursive descents and repeated union entries multiply its
 * work over a document.
 */

export const JSONPATH_LIMITS = {
  /** Characters in an expression. */
  length: 2048,
  /** Recursive descents (`..`), filters included: each multiplies the work by the document's depth. */
  descents: 2,
  /** Filters inside filters' paths, counting the outer one. */
  filterNesting: 2,
  /** Names or indices in one union (`['a','b']`, `[0,1]`). */
  unionEntries: 32,
  /** Digits in one number: RedisJSON crashes on indices beyond 64 bits. */
  digits: 15
} as const

/** What a JSONPath asks of RedisJSON, as far as its text tells. */
export interface JsonPathShape {
  /** Recursive descents (`..`), in the path and in its filters. */
  descents: number
  /** Filter selectors (`[?...]`), nested ones included. */
  filters: number
  /** Whether it may match more than one value (a wildcard, slice, union, filter or descent): then it visits many. */
  multiple: boolean
}

export type JsonPathVerdict = { shape: JsonPathShape } | { problem: string }

class Refused extends Error {}

const LITERAL = /[A-Za-z0-9\-_`~+#%$^/:]/
const COMPARISONS = ['>=', '<=', '==', '!=', '>', '<']

/** Parses an expression as RedisJSON would, refusing what it must not run; answers its shape or why not. */
export function analyzeJsonPath (expression: string): JsonPathVerdict {
  if (expression.length > JSONPATH_LIMITS.length) return { problem: `A JSONPath has at most ${JSONPATH_LIMITS.length} characters` }
  if (!expression.startsWith('$')) return { problem: 'A JSONPath starts with "$"' }
  const parser = new Parser(expression)
  try {
    parser.query()
  } catch (error) {
    if (error instanceof Refused) return { problem: error.message }
    throw error
  }
  return { shape: { descents: parser.descents, filters: parser.filters, multiple: parser.multiple } }
}

class Parser {
  at = 0
  descents = 0
  filters = 0
  multiple = false
  #filterDepth = 0
  /** Inside a path from the root in a filter: evaluated for every value the filter tests, it must name one. */
  #singular = false

  constructor (readonly text: string) {}

  query (): void {
    this.#expect('$')
    // RedisJSON reads any other start as its legacy path syntax, which answers one value, not a list.
    if (this.at < this.text.length && this.#peek() !== '.' && this.#peek() !== '[') {
      this.#fail('A JSONPath is "$" or starts with "$." or "$["')
    }
    this.#steps()
    this.#spaces()
    if (this.at < this.text.length) this.#fail(`Unexpected "${this.text[this.at]}" at position ${this.at}`)
  }

  /** A path in a filter, after `$` or `@`: a first name or `*` may follow it directly, as RedisJSON allows. */
  #path (): void {
    if (!this.#wildcard() && LITERAL.test(this.#peek())) this.#literal()
    this.#steps()
  }

  #steps (): void {
    for (;;) {
      this.#spaces()
      if (this.#eat('..')) {
        this.#several('a recursive descent')
        if (++this.descents > JSONPATH_LIMITS.descents) {
          this.#fail(`A JSONPath has at most ${JSONPATH_LIMITS.descents} recursive descents ("..")`)
        }
        if (this.#eat('[')) this.#bracket()
        else if (!this.#wildcard()) this.#literal()
      } else if (this.#eat('.')) {
        if (this.#eat('[')) this.#bracket()
        else if (!this.#wildcard()) this.#literal()
      } else if (this.#eat('[')) {
        this.#bracket()
      } else {
        return
      }
    }
  }

  #wildcard (): boolean {
    if (!this.#eat('*')) return false
    this.#several('a wildcard')
    return true
  }

  /** A selector that may match several values: fine in the path, refused where one value must be named. */
  #several (what: string): void {
    if (this.#singular) {
      this.#fail(`A path from the root inside a filter names one value: RedisJSON evaluates it for every value the filter tests, so ${what} there is refused`)
    }
    this.multiple = true
  }

  #bracket (): void {
    this.#spaces()
    const next = this.#peek()
    if (this.#wildcard()) {
      // every child
    } else if (this.#eat('?')) {
      this.#several('a filter')
      this.#filter()
    } else if (next === '"' || next === "'") {
      this.#union(() => this.#string())
    } else if (next === ':' || next === '-' || isDigit(next)) {
      this.#indices()
    } else {
      this.#fail(`Unexpected "${next ?? 'end'}" in brackets at position ${this.at}`)
    }
    this.#spaces()
    this.#expect(']')
  }

  /** Names or indices separated by commas: each distinct, so that no value is matched twice. */
  #union (entry: () => string): void {
    const seen = new Set<string>()
    do {
      this.#spaces()
      const value = entry()
      if (seen.has(value)) this.#fail(`A union names ${value} twice`)
      seen.add(value)
      if (seen.size === 2) this.#several('a union')
      if (seen.size > JSONPATH_LIMITS.unionEntries) this.#fail(`A union has at most ${JSONPATH_LIMITS.unionEntries} entries`)
      this.#spaces()
    } while (this.#eat(','))
  }

  /** A slice (`start:end:step`, each optional, a step positive) or a union of indices, all negative or all not. */
  #indices (): void {
    const start = this.at
    if (this.#peek() !== ':') this.#integer()
    this.#spaces()
    if (this.#eat(':')) {
      this.#several('a slice')
      this.#spaces()
      if (this.#peek() === '-' || isDigit(this.#peek())) this.#integer()
      this.#spaces()
      if (this.#eat(':')) {
        this.#spaces()
        if (this.#peek() === '-' || isDigit(this.#peek())) this.#step()
      }
      return
    }
    let signs = ''
    this.at = start
    this.#union(() => {
      const index = this.#integer()
      signs += index.startsWith('-') ? '-' : '+'
      return String(Number(index))
    })
    if (signs.includes('-') && signs.includes('+')) {
      this.#fail('A union of indices counts them all from the start or all from the end, so that none repeats')
    }
  }

  #filter (): void {
    this.filters++
    if (++this.#filterDepth > JSONPATH_LIMITS.filterNesting) {
      this.#fail(`Filters nest at most ${JSONPATH_LIMITS.filterNesting} deep`)
    }
    this.#disjunction()
    this.#filterDepth--
  }

  #disjunction (): void {
    for (;;) {
      this.#condition()
      this.#spaces()
      if (!this.#eat('&&') && !this.#eat('||')) return
    }
  }

  #condition (): void {
    this.#spaces()
    if (this.#eat('(')) {
      this.#disjunction()
      this.#spaces()
      this.#expect(')')
      return
    }
    this.#term()
    this.#spaces()
    if (this.text.startsWith('=~', this.at)) {
      this.#fail('JSONPath filters here compare with ==, !=, <, <=, > and >=: RedisJSON compiles a regular expression (=~) anew for every value it tests')
    }
    const comparison = COMPARISONS.find((operator) => this.text.startsWith(operator, this.at))
    if (comparison === undefined) return
    this.at += comparison.length
    this.#spaces()
    this.#term()
  }

  #term (): void {
    const next = this.#peek()
    if (this.#eat('@')) return this.#path()
    if (this.#eat('$')) {
      const outer = this.#singular
      this.#singular = true
      this.#path()
      this.#singular = outer
      return
    }
    if (next === '"' || next === "'") return void this.#string()
    if (next === '-' || isDigit(next)) {
      this.#integer()
      if (this.#eat('.')) this.#digits()
      return
    }
    for (const word of ['true', 'false', 'null']) if (this.#eat(word)) return
    this.#fail(`Unexpected "${next ?? 'end'}" in a filter at position ${this.at}`)
  }

  #literal (): void {
    const start = this.at
    while (LITERAL.test(this.#peek())) this.at++
    if (this.at === start) this.#fail(`A name is expected at position ${this.at}`)
    this.#checkDigits(this.text.slice(start, this.at))
  }

  /**
   * A quoted name or string. RedisJSON's grammar escapes only the quote and the backslash; it crashes on
   * other escapes beside characters outside the basic plane (`"\\u0041😀"`), so they are refused here.
   */
  #string (): string {
    const quote = this.text[this.at]!
    if (quote !== '"' && quote !== "'") this.#fail(`A quoted name is expected at position ${this.at}`)
    const start = this.at++
    while (this.at < this.text.length && this.text[this.at] !== quote) {
      if (this.text[this.at] === '\\') {
        const escaped = this.text[this.at + 1]
        if (escaped !== quote && escaped !== '\\') {
          this.#fail(`A quoted name escapes only its quote and the backslash (position ${this.at})`)
        }
        this.at++
      }
      this.at++
    }
    if (this.at >= this.text.length) this.#fail('A quoted name is not closed')
    this.at++
    return this.text.slice(start, this.at)
  }

  /** A number as RedisJSON's grammar has them: no leading zero but in 0 itself. */
  #integer (): string {
    const start = this.at
    this.#eat('-')
    if (this.#peek() === '0' && isDigit(this.text[this.at + 1] ?? '')) this.#fail(`A number has no leading zero (position ${this.at})`)
    this.#digits()
    return this.text.slice(start, this.at)
  }

  /** A slice's step: RedisJSON's grammar takes only a positive one. */
  #step (): void {
    if (this.#peek() === '-' || this.#peek() === '0') this.#fail(`A slice's step is a positive number (position ${this.at})`)
    this.#digits()
  }

  #digits (): void {
    const start = this.at
    while (isDigit(this.#peek())) this.at++
    if (this.at === start) this.#fail(`A number is expected at position ${this.at}`)
    this.#checkDigits(this.text.slice(start, this.at))
  }

  #checkDigits (text: string): void {
    if (/[0-9]{16}/.test(text)) this.#fail(`Numbers in a JSONPath have at most ${JSONPATH_LIMITS.digits} digits`)
  }

  /** Skips spaces, the only whitespace RedisJSON's grammar takes. */
  #spaces (): void {
    while (this.text[this.at] === ' ') this.at++
  }

  #peek (): string {
    return this.text[this.at] ?? ''
  }

  #eat (token: string): boolean {
    if (!this.text.startsWith(token, this.at)) return false
    this.at += token.length
    return true
  }

  #expect (token: string): void {
    if (!this.#eat(token)) this.#fail(`"${token}" is expected at position ${this.at}`)
  }

  #fail (message: string): never {
    throw new Refused(message)
  }
}

function isDigit (char: string): boolean {
  return char >= '0' && char <= '9'
}
