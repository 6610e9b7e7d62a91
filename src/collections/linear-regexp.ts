import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { RE2JS, RE2JSException } from 're2js'
import { propertyRanges } from './code-point-sets.js'
import { toLinearSyntax, UnrunnablePatternError } from './pattern-syntax.js'

/**
 * The largest program a schema pattern may compile to. RE2 matches in time linear in the text, times at
 * most the program's size when its DFA gives way to its NFA, so this bounds that factor. It admits the
 * largest repetition RE2 takes of one character or class (`.{0,1000}` is 2004 instructions).
 */
export const MAX_PATTERN_INSTRUCTIONS = 2500

/**
 * The most instructions the patterns of one schema may compile to together (each distinct pattern
 * once). A compiled instruction holds ~160 bytes, so a schema's patterns hold ~4 MB at most, however
 * small its text: `[a-z]{0,800}` is 14 characters and 1600 instructions.
 */
export const MAX_SCHEMA_INSTRUCTIONS = 25_000

/** Distinct Unicode property escapes one schema may use: V8 is asked for each set, up to ~150 ms each. */
export const MAX_SCHEMA_PROPERTIES = 16

/** A schema pattern compiled for RE2 (re2js, pure JavaScript): `test` runs in time linear in the text. */
export interface LinearPattern {
  readonly source: string
  /** Instructions of its program. */
  readonly size: number
  test (text: string): boolean
  toString (): string
}

/** Compiles an ECMAScript pattern for the linear-time engine; throws UnrunnablePatternError saying why not. */
export function compileLinearPattern (source: string): LinearPattern {
  return compileSyntax(source, toLinearSyntax(source))
}

function compileSyntax (source: string, syntax: string): LinearPattern {
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
  const engine = engineOf(compiled)
  if (engine) engine.onepass = null
  return {
    source,
    size,
    test: (text) => {
      const answer = compiled.test(text)
      if (engine) keepWarm(engine)
      return answer
    },
    // ajv tells patterns apart by this text: two patterns must never share it.
    toString: () => `/${source}/u`
  }
}

/** The patterns of one schema: each compiled once, all within MAX_SCHEMA_INSTRUCTIONS and MAX_SCHEMA_PROPERTIES. */
export interface SchemaPatterns {
  /** Why a pattern cannot run in linear time (or would take the schema over its budget), or undefined. */
  problemOf (source: string): string | undefined
  /** The engine ajv runs `pattern` and `patternProperties` with (its `code.regExp` option). */
  readonly engine: RegExpEngine
}

export function createSchemaPatterns (): SchemaPatterns {
  const compiled = new Map<string, LinearPattern | UnrunnablePatternError>()
  const properties = new Set<string>()
  let instructions = 0
  const property = (escape: string) => {
    if (!properties.has(escape)) {
      if (properties.size >= MAX_SCHEMA_PROPERTIES) {
        throw new UnrunnablePatternError(`uses a Unicode property (${escape}) past the ${MAX_SCHEMA_PROPERTIES} distinct ones a schema may use`)
      }
      properties.add(escape)
    }
    return propertyRanges(escape)
  }

  // Past the budget, patterns are still read (their own faults are named) but not compiled.
  function compile (source: string): LinearPattern | UnrunnablePatternError {
    let entry = compiled.get(source)
    if (!entry) {
      try {
        const syntax = toLinearSyntax(source, property)
        if (instructions > MAX_SCHEMA_INSTRUCTIONS) throw overBudget(instructions)
        entry = compileSyntax(source, syntax)
        instructions += entry.size
        if (instructions > MAX_SCHEMA_INSTRUCTIONS) throw overBudget(instructions)
      } catch (error) {
        if (!(error instanceof UnrunnablePatternError)) throw error
        entry = error
      }
      compiled.set(source, entry)
    }
    return entry
  }

  return {
    problemOf (source) {
      const entry = compile(source)
      return entry instanceof UnrunnablePatternError ? entry.message : undefined
    },
    engine: Object.assign((source: string) => {
      const entry = compile(source)
      if (entry instanceof UnrunnablePatternError) throw entry
      return entry
    }, { code: 'linearRegExp' })
  }
}

function overBudget (instructions: number) {
  return new UnrunnablePatternError(`takes the schema's patterns past the ${MAX_SCHEMA_INSTRUCTIONS} instructions they may ` +
    `compile to together (${instructions} with those before it)`)
}

/** What this module reaches for inside re2js (2.x): the RE2 object behind an RE2JS. */
interface Re2Engine {
  /** Its one-pass matcher, which test() prefers when a pattern allows one. */
  onepass: unknown
  /** Its DFA, built on first use and kept; states cost up to `stateBudget` bytes (8 MB) by its own count. */
  lazyDFA: {
    stateBudget: number
    memBudget: number
    /** A failed DFA answers nothing, and test() asks the NFA (or a bounded backtracker) instead. */
    failed: boolean
    clearCache (): void
  } | null
}

/*
 * re2js answers test() with its one-pass matcher whenever a pattern allows one, and that reads a text
 * several times slower than its DFA does for a yes or no (114 against 21 ms for `^[a-z]+$` over 1 MiB):
 * it is turned off, and the answer is the same. Without these fields (another re2js) nothing is
 * changed and matching stays right; a test says so.
 */
export function engineOf (compiled: RE2JS): Re2Engine | undefined {
  const engine = (compiled as unknown as { re2Input?: Partial<Re2Engine> }).re2Input
  return engine && 'onepass' in engine && 'lazyDFA' in engine ? engine as Re2Engine : undefined
}

/** Whether a DFA is as this module expects (checked once it exists: re2js builds it on first use). */
function isManageable (dfa: object): dfa is NonNullable<Re2Engine['lazyDFA']> {
  return 'stateBudget' in dfa && 'memBudget' in dfa && 'failed' in dfa && 'clearCache' in dfa
}

/*
 * Each pattern's DFA keeps the states it built, up to 8 MB, and a hostile text makes it build a state
 * per character: 100 such patterns would hold 860 MB, each test paying ~5 µs a character to build them.
 * A DFA that outgrows MAX_WARM_DFA_BYTES in a test is emptied and marked failed, so its pattern runs on
 * the NFA from then on (linear too, and cheaper than a DFA building a state per character). Only the
 * DFAs of the patterns tested last keep their states; the others are released and built again when
 * needed. Between tests the process holds at most MAX_WARM_DFAS * MAX_WARM_DFA_BYTES of DFA states.
 */
const MAX_WARM_DFAS = 32
const MAX_WARM_DFA_BYTES = 512 * 1024
const warmEngines = new Set<Re2Engine>()

function keepWarm (engine: Re2Engine) {
  warmEngines.delete(engine)
  const dfa = engine.lazyDFA
  if (!dfa || !isManageable(dfa) || dfa.failed) return
  if (dfa.stateBudget - dfa.memBudget > MAX_WARM_DFA_BYTES) {
    dfa.clearCache()
    dfa.failed = true
    return
  }
  warmEngines.add(engine)
  if (warmEngines.size > MAX_WARM_DFAS) {
    const [coldest] = warmEngines
    if (coldest) {
      warmEngines.delete(coldest)
      coldest.lazyDFA = null
    }
  }
}
