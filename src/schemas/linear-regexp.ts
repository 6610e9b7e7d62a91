import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { RE2JS, RE2JSException } from 're2js'
import { toLinearSyntax, UnrunnablePatternError } from './pattern-syntax.js'

/**
 * The largest program a schema pattern may compile to. RE2 matches in time linear in the text, times at
 * most the program's size when its DFA gives way to its NFA, so this bounds that factor. It admits the
 * largest repetition RE2 takes of one character or class (`.{0,1000}` is 2004 instructions).
 */
export const MAX_PATTERN_INSTRUCTIONS = 2500

/** A schema pattern compiled for RE2 (re2js, pure JavaScript): `test` runs in time linear in the text. */
export interface LinearPattern {
  readonly source: string
  test (text: string): boolean
  toString (): string
}

/** Compiles an ECMAScript pattern for the linear-time engine; throws UnrunnablePatternError saying why not. */
export function compileLinearPattern (source: string): LinearPattern {
  const syntax = toLinearSyntax(source)
  let compiled: RE2JS
  try {
    compiled = RE2JS.compile(syntax)
  } catch (error) {
    if (error instanceof RE2JSException) throw new UnrunnablePatternError(`is too large: the linear-time engine refuses it (${error.message})`)
    throw error
  }
  const size = compiled.programSize()
  if (size > MAX_PATTERN_INSTRUCTIONS) {
    throw new UnrunnablePatternError(`compiles to ${size} instructions, more than the ${MAX_PATTERN_INSTRUCTIONS} a pattern may have`)
  }
  preferDfa(compiled)
  return {
    source,
    test: (text) => compiled.test(text),
    // ajv tells patterns apart by this text: two patterns must never share it.
    toString: () => `/${source}/u`
  }
}

/** Why a pattern cannot run in linear time, or undefined when it can. */
export function patternProblem (source: string): string | undefined {
  try {
    compileLinearPattern(source)
    return undefined
  } catch (error) {
    if (error instanceof UnrunnablePatternError) return error.message
    throw error
  }
}

/** The engine ajv runs `pattern` and `patternProperties` with (its `code.regExp` option). */
export const linearRegExp: RegExpEngine = Object.assign((source: string) => compileLinearPattern(source), {
  code: 'linearRegExp'
})

/*
 * re2js answers test() with its one-pass matcher whenever a pattern allows one, and that reads a text
 * several times slower than its DFA does for a yes or no (114 against 21 ms for `^[a-z]+$` over 1 MiB).
 * The answer is the same; without the field (another re2js) this does nothing and matching stays right.
 */
function preferDfa (compiled: RE2JS) {
  const engine = (compiled as unknown as { re2Input?: { onepass?: unknown } }).re2Input
  if (engine && 'onepass' in engine) engine.onepass = null
}
