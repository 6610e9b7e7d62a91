import fc from 'fast-check'
import { trickyNames } from '../../helpers/member-names.js'

/**
 * Hostile document keys, member names and pointers, and the URLs that carry them: what a client can put
 * in a path segment, percent-encoded or not, well-formed or not.
 */

/** Characters that mean something to a URL, JSON Pointer, RedisJSON path, Lua, glob or the key layout. */
const hostileChars = [
  '"', "'", '\\', '[', ']', '.', '$', '*', '@', '?', '(', ')', ',', ':', ';', '=', '&', '#', '%', '+', '!', '|',
  ' ', '\n', '\r', '\t', '\u0000', '\u001f', '\u007f', '\u0085', '~', '/', '{', '}', '<', '>', '^', '`',
  '\u2028', '\ufeff', '\ud800', '\udfff', 'é', '😀', '中', '0', '9', '-', 'a', 'Z'
]

export const hostileChar = fc.constantFrom(...hostileChars)

/** Short strings of hostile characters, and any code point now and then. */
export const hostileText = (maxLength = 12) => fc.string({
  unit: fc.oneof({ weight: 4, arbitrary: hostileChar }, { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) }),
  maxLength
})

const digitTokens = [
  '0', '1', '2', '3', '01', '00', '-', '-1', '-0', '+1', '1e2', '0x1', ' 1', '1 ', '999999999999999', '1000000000000000',
  '9223372036854775807', '9223372036854775808', '18446744073709551615', '18446744073709551616', '9'.repeat(40)
]

/** Member names: the tricky ones every test knows, digits of every kind, and generated hostile text. */
export const memberName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...trickyNames, ' lead', '\nlead', '$..', '[*]', "['a']", '"a"', 'a.b') },
  { weight: 2, arbitrary: fc.constantFrom(...digitTokens) },
  { weight: 3, arbitrary: hostileText() }
)

/** Pointer tokens: mostly a few, sometimes past the 128 a pointer may have. */
export const pointerTokens: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 8, arbitrary: fc.array(memberName, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom(127, 128, 129, 400).map((length) => Array.from({ length }, () => '0')) },
  { weight: 1, arbitrary: fc.integer({ min: 120, max: 140 }).map((length) => Array.from({ length }, (_, i) => (i % 2 ? 'a' : '0'))) }
)

const lengthEdges = [
  'k'.repeat(1023), 'k'.repeat(1024), 'k'.repeat(1025), 'é'.repeat(512), 'é'.repeat(511) + 'k', 'é'.repeat(512) + 'k',
  '😀'.repeat(256), '😀'.repeat(255) + 'kkk', '😀'.repeat(256) + 'k', '中'.repeat(341) + 'k', '中'.repeat(342), 'k'.repeat(3000)
]

/** Document keys: the 1024-byte edges in 1-, 2-, 3- and 4-byte characters, separators, dots, hostile text. */
export const documentKey = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...lengthEdges) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('k', 'users:1', ':x', 'x:', '::', 'a/b', '/', '..', '.', '~', '~1', '%', '%2F', '*', '?',
      '[', 'é', '😀', '\u2028', ' ', ' lead', 'trail ', '"', "'", '\\', '$', '__proto__', 'a\u0000b', '\u001f',
      '\u007f', '\u0085', '\u009f', '\ufeff', '\ud800', '\udc00x', 'a\u001fversion', 'a:b:c', 'neighbour')
  },
  { weight: 4, arbitrary: hostileText(16).filter((text) => text.length > 0) },
  { weight: 4, arbitrary: hostileText(16).filter((text) => text.length > 0 && !/\p{Cc}/u.test(text)) }
)

/** UTF-8 bytes of one code unit sequence, lone surrogates as the 3 bytes a careless encoder would send. */
function utf8Bytes (char: string): number[] {
  const code = char.codePointAt(0)!
  if (code >= 0xd800 && code <= 0xdfff) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
  return [...Buffer.from(char, 'utf8')]
}

const percent = (bytes: number[]) => bytes.map((byte) => '%' + byte.toString(16).toUpperCase().padStart(2, '0')).join('')

/**
 * Percent-encodes text for a URL path segment. `full` encodes everything but unreserved characters;
 * `minimal` leaves every printable ASCII character that a request line can carry as it is, so quotes,
 * brackets, `$` and `*` reach the service raw.
 */
export function encodeSegment (text: string, style: 'full' | 'minimal'): string {
  let encoded = ''
  for (const char of text) {
    const code = char.codePointAt(0)!
    const raw = style === 'full'
      ? /^[A-Za-z0-9\-._~]$/.test(char)
      : code > 0x20 && code < 0x7f && !'%/?#'.includes(char)
    encoded += raw ? char : percent(utf8Bytes(char))
  }
  return encoded
}

/** RFC 6901 escaping of a token. */
export const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1')

/** Segments no encoder produces: broken escapes, over-long UTF-8, encoded controls, double encoding. */
export const malformedSegment = fc.constantFrom(
  '%', '%2', '%G0', '%C3', '%C0%80', '%ED%A0%80', '%F4%90%80%80', '%FF', '%00', '%1F', '%7F', '%252F', '%2e%2e', '.', '..',
  '~', '~2', '~~', '%7E2', '~%30'
)

export interface Address {
  /** The key's segment as it appears in the URL. */
  keySegment: string
  /** The key the service should read from it, when it is valid percent-encoded UTF-8. */
  key?: string
  /** The pointer's segments as they appear in the URL path. */
  pointerSegments: string[]
  tokens: string[]
  /** Whether the pointer goes in ?pointer= instead of the path. */
  inQuery: boolean
  /** A segment no encoder makes, spliced into the path (the pointer is then malformed on purpose). */
  malformed?: string
}

/** The key a URL segment names, as the contract says: its percent-decoding, when there is one. */
export function decodedKey (segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

export const address: fc.Arbitrary<Address> = fc.record({
  // A key "." or ".." is a dot-segment, which URLs normalise away, encoded or not (see docs/api.md): no path names it.
  key: documentKey.filter((key) => key !== '.' && key !== '..'),
  tokens: pointerTokens,
  style: fc.constantFrom('full', 'minimal') as fc.Arbitrary<'full' | 'minimal'>,
  inQuery: fc.boolean(),
  malformed: fc.option(fc.tuple(malformedSegment, fc.boolean()), { freq: 6 })
}).map(({ key, tokens, style, inQuery, malformed }) => {
  let keySegment = encodeSegment(key, style)
  if (malformed?.[1]) keySegment += malformed[0]
  const pointerSegments = tokens.map((token) => encodeSegment(escapeToken(token), style))
  if (malformed && !malformed[1]) pointerSegments.push(malformed[0])
  const decoded = decodedKey(keySegment)
  return {
    keySegment,
    ...(decoded === undefined ? {} : { key: decoded }),
    pointerSegments,
    tokens,
    inQuery,
    ...(malformed ? { malformed: malformed[0] } : {})
  }
})

/** The URL of an address on a resource (`/docs`, `/meta`), with extra query parameters. */
export function urlOf (resource: string, target: Address, query: Record<string, string> = {}): string {
  const params = new URLSearchParams(query)
  let path = `/${resource}/${target.keySegment}`
  if (target.inQuery && target.malformed === undefined) {
    if (target.tokens.length > 0) params.set('pointer', target.tokens.map((token) => '/' + escapeToken(token)).join(''))
  } else if (target.pointerSegments.length > 0) {
    path += '/' + target.pointerSegments.join('/')
  }
  const search = params.toString()
  return search ? `${path}?${search}` : path
}
