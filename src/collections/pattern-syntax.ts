import { RegExpParser, type AST } from '@eslint-community/regexpp'
import {
  ALL_CODE_POINTS, complementOf, DIGITS, LINE_TERMINATORS, propertyRanges, WHITE_SPACE, WORD_CHARACTERS,
  WORD_CHARACTERS_IGNORING_CASE, type CodePointRange, type CodePointRanges
} from './code-point-sets.js'

/** Why a schema pattern cannot be run in linear time, or is not a pattern at all; the message says which. */
export class UnrunnablePatternError extends Error {}

/** The largest repetition count RE2 compiles; a longer string is for minLength and maxLength to bound. */
const MAX_REPEAT = 1000

interface Flags {
  ignoreCase: boolean
  dotAll: boolean
  /** The code points of a property escape, `\p{...}`. */
  property: (escape: string) => CodePointRanges
}

const parser = new RegExpParser({ ecmaVersion: 2025 })

/**
 * Rewrites an ECMAScript pattern (as JSON Schema reads it: ECMA-262, u flag) into RE2's syntax with the
 * same meaning for a match anywhere in a string. RE2 reads some of the same text differently (`\s`, `.`,
 * `\u`, `\p{Letter}`, `[^]`), so nothing is copied through: classes become explicit code point ranges and
 * every character an `\x{...}` escape. Backreferences and lookaround have no linear-time equivalent, and
 * are refused, as is the multiline modifier (RE2's `^` and `$` know only `\n` as a line end).
 */
export function toLinearSyntax (source: string, property: (escape: string) => CodePointRanges = propertyRanges): string {
  let pattern: AST.Pattern
  try {
    pattern = parser.parsePattern(source, 0, source.length, { unicode: true })
  } catch (error) {
    throw new UnrunnablePatternError(`is not an ECMAScript regular expression (u flag): ${(error as Error).message}`)
  }
  try {
    return alternatives(pattern.alternatives, { ignoreCase: false, dotAll: false, property })
  } catch (error) {
    if (error instanceof RangeError) throw new UnrunnablePatternError('nests too deeply')
    throw error
  }
}

function alternatives (nodes: readonly AST.Alternative[], flags: Flags): string {
  return nodes.map((alternative) => alternative.elements.map((node) => element(node, flags)).join('')).join('|')
}

function element (node: AST.Element, flags: Flags): string {
  switch (node.type) {
    case 'Character': return literal(node.value)
    case 'CharacterSet': return characterSet(node, flags)
    case 'CharacterClass': return characterClass(node, flags)
    case 'CapturingGroup': return `(?:${alternatives(node.alternatives, flags)})`
    case 'Group': return group(node, flags)
    case 'Quantifier': return quantifier(node, flags)
    case 'Assertion': return assertion(node, flags)
    case 'Backreference': throw new UnrunnablePatternError(`uses a backreference (${excerpt(node.raw)}), which cannot run in linear time`)
    default: throw new UnrunnablePatternError(`uses ${excerpt(node.raw)}, which only the v flag allows`)
  }
}

function group (node: AST.Group, flags: Flags): string {
  const modifiers = node.modifiers
  if (!modifiers) return `(?:${alternatives(node.alternatives, flags)})`
  if (modifiers.add.multiline) {
    throw new UnrunnablePatternError(`uses the multiline modifier (${modifiers.raw}), which the linear-time engine cannot follow`)
  }
  const inner: Flags = {
    ...flags,
    ignoreCase: (flags.ignoreCase || modifiers.add.ignoreCase) && !modifiers.remove?.ignoreCase,
    dotAll: (flags.dotAll || modifiers.add.dotAll) && !modifiers.remove?.dotAll
  }
  const caseFlag = inner.ignoreCase === flags.ignoreCase ? '' : inner.ignoreCase ? 'i' : '-i'
  return `(?${caseFlag}:${alternatives(node.alternatives, inner)})`
}

function quantifier (node: AST.Quantifier, flags: Flags): string {
  const { min, max } = node
  if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) {
    throw new UnrunnablePatternError(`repeats more than ${MAX_REPEAT} times (${node.raw.slice(node.element.raw.length)}); ` +
      'bound a string\'s length with minLength and maxLength instead')
  }
  const count = max === Infinity ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`
  return `(?:${element(node.element, flags)})${count}`
}

function assertion (node: AST.Assertion, flags: Flags): string {
  switch (node.kind) {
    case 'start': return '^'
    case 'end': return '$'
    case 'word':
      // With case folding, ECMAScript counts U+017F and U+212A as word characters; RE2's \b does not.
      if (flags.ignoreCase) throw new UnrunnablePatternError(`uses ${node.raw} in a case-insensitive group`)
      return node.negate ? '\\B' : '\\b'
    default:
      throw new UnrunnablePatternError(`uses a ${node.kind} assertion (${excerpt(node.raw)}), which cannot run in linear time`)
  }
}

function characterSet (node: AST.CharacterSet, flags: Flags): string {
  if (node.kind === 'any') return classOf(flags.dotAll ? ALL_CODE_POINTS : complementOf(LINE_TERMINATORS))
  return classOf(rangesOf(node, flags))
}

function characterClass (node: AST.CharacterClass, flags: Flags): string {
  if (node.unicodeSets) throw new UnrunnablePatternError(`uses ${excerpt(node.raw)}, which only the v flag allows`)
  const ranges: CodePointRange[] = []
  for (const item of node.elements) {
    if (item.type === 'Character') ranges.push([item.value, item.value])
    else if (item.type === 'CharacterClassRange') ranges.push([item.min.value, item.max.value])
    else ranges.push(...rangesOf(item, flags))
  }
  // RE2 reads an empty class as an error, so "nothing" and "anything" are spelled out.
  if (ranges.length === 0) return classOf(node.negate ? ALL_CODE_POINTS : [])
  return node.negate ? classOf(ranges, '^') : classOf(ranges)
}

function rangesOf (node: AST.EscapeCharacterSet | AST.UnicodePropertyCharacterSet, flags: Flags): CodePointRanges {
  const ranges = node.kind === 'digit'
    ? DIGITS
    : node.kind === 'word'
      ? (flags.ignoreCase ? WORD_CHARACTERS_IGNORING_CASE : WORD_CHARACTERS)
      : node.kind === 'space'
        ? WHITE_SPACE
        : flags.property(node.negate ? `\\p${node.raw.slice(2)}` : node.raw)
  return node.negate ? complementOf(ranges) : ranges
}

/** A class of the ranges; with no ranges, a class nothing matches. */
function classOf (ranges: CodePointRanges, negate = ''): string {
  if (ranges.length === 0) return `[^${range(0, 0x10ffff)}]`
  return `[${negate}${ranges.map(([lo, hi]) => range(lo, hi)).join('')}]`
}

function range (lo: number, hi: number): string {
  return lo === hi ? literal(lo) : `${literal(lo)}-${literal(hi)}`
}

function literal (codePoint: number): string {
  return `\\x{${codePoint.toString(16)}}`
}

/** A piece of a pattern short enough for a message. */
function excerpt (raw: string): string {
  return raw.length > 24 ? `${raw.slice(0, 23)}…` : raw
}
