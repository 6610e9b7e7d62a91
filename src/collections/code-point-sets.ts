/** An inclusive range of code points. */
export type CodePointRange = readonly [lo: number, hi: number]

/**
 * A set of code points as sorted, disjoint ranges: what a character class escape of an ECMAScript
 * pattern matches, spelled out for an engine that reads other syntax.
 */
export type CodePointRanges = readonly CodePointRange[]

const MAX_CODE_POINT = 0x10ffff

/** `\d`, `\w` and `\s` as ECMAScript defines them (`\s` is WhiteSpace and LineTerminator, not Perl's). */
export const DIGITS: CodePointRanges = [[0x30, 0x39]]
export const WORD_CHARACTERS: CodePointRanges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]
/** `\w` ignoring case: also U+017F and U+212A, which fold to `s` and `k`. */
export const WORD_CHARACTERS_IGNORING_CASE: CodePointRanges = [...WORD_CHARACTERS, [0x17f, 0x17f], [0x212a, 0x212a]]
export const WHITE_SPACE: CodePointRanges = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f],
  [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]
]
/** What `.` does not match without the s flag. */
export const LINE_TERMINATORS: CodePointRanges = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]
export const ALL_CODE_POINTS: CodePointRanges = [[0, MAX_CODE_POINT]]

/** The code points outside a set. */
export function complementOf (ranges: CodePointRanges): CodePointRange[] {
  const result: CodePointRange[] = []
  let next = 0
  for (const [lo, hi] of ranges) {
    if (lo > next) result.push([next, lo - 1])
    next = hi + 1
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT])
  return result
}

/*
 * Unicode property escapes are answered by V8 itself, so a pattern means what it meant when V8 ran it:
 * the same property names and aliases, the same Unicode version. Each set costs a scan of every code
 * point (up to ~150 ms) once per process, and is kept: the names V8 accepts are finite (under 2000 with
 * their aliases), and this bound holds them all. Lone surrogates are left out: JSON text the service
 * stores cannot hold them.
 */
const MAX_KEPT_PROPERTIES = 4096
const propertySets = new Map<string, CodePointRanges>()
let everyCodePoint: string[] | undefined

/** The code points `\p{...}` matches, for a property escape V8 accepts with the u flag (`\p{Letter}`). */
export function propertyRanges (escape: string): CodePointRanges {
  let ranges = propertySets.get(escape)
  if (!ranges) {
    ranges = computePropertyRanges(escape)
    if (propertySets.size >= MAX_KEPT_PROPERTIES) propertySets.clear()
    propertySets.set(escape, ranges)
  }
  return ranges
}

function computePropertyRanges (escape: string): CodePointRanges {
  everyCodePoint ??= ([[0, 0xd7ff], [0xe000, 0xffff], [0x10000, MAX_CODE_POINT]] as const).map(([lo, hi]) => textOf(lo, hi))
  const runs = new RegExp(`${escape}+`, 'gu')
  const ranges: CodePointRange[] = []
  for (const text of everyCodePoint) {
    for (const [run] of text.matchAll(runs)) {
      const lastUnit = run.charCodeAt(run.length - 1)
      const last = lastUnit >= 0xdc00 && lastUnit <= 0xdfff ? run.codePointAt(run.length - 2) : lastUnit
      ranges.push([run.codePointAt(0) ?? 0, last ?? 0])
    }
  }
  return ranges
}

function textOf (lo: number, hi: number): string {
  const chunks: string[] = []
  for (let start = lo; start <= hi; start += 4096) {
    const codePoints: number[] = []
    for (let codePoint = start; codePoint <= Math.min(hi, start + 4095); codePoint++) codePoints.push(codePoint)
    chunks.push(String.fromCodePoint(...codePoints))
  }
  return chunks.join('')
}
