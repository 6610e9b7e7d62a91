/**
 * Pure translation from request URLs to RedisJSON paths: URL segments -> JSON Pointer (RFC 6901)
 * tokens -> RedisJSON JSONPath steps. No client text reaches Redis without passing through here.
 */

export const MAX_KEY_BYTES = 1024
/**
 * RedisJSON cannot hold values nested 128 deep, so no longer pointer can address anything; refusing
 * them before Redis keeps a long URL of digits from costing Redis one path walk per token.
 */
export const MAX_POINTER_TOKENS = 128
/** Longest array index forwarded to Redis: RedisJSON crashes on indices that overflow 64 bits. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,14})$/
const CONTROL_CHARACTER = /\p{Cc}/u

export interface DocumentAddress {
  /** The document's key, without the service's prefix. */
  key: string
  /** The JSON Pointer's reference tokens, unescaped; empty for the whole document. */
  tokens: string[]
}

export type AddressProblem = { problem: string }

/**
 * A document address from its route's parameters: `key`, which the router has percent-decoded, and
 * `rawPointer`, the path segments after it (`/docs/{key}/{rawPointer}`) as sent, still percent-encoded,
 * or undefined when the URL has none. Every `/` separates tokens, so `/docs/k/` addresses the member
 * named "" (as the pointer "/" does), and a `%2F` stays inside its token.
 * `queryPointer`, the decoded `?pointer=` parameter, is the other way to give the same pointer: generated
 * clients percent-encode a "/" inside a path parameter, so they cannot reach a deep location by path.
 */
export function parseDocumentAddress (key: string, rawPointer: string | undefined,
  queryPointer?: string): DocumentAddress | AddressProblem {
  const keyProblem = checkKey(key)
  if (keyProblem) return { problem: keyProblem }
  if (queryPointer !== undefined) {
    if (rawPointer !== undefined) return { problem: 'Give the pointer in the path or in ?pointer=, not both' }
    const tokens = parsePointer(queryPointer)
    if (tokens === undefined) return { problem: `?pointer=${queryPointer} is not a JSON Pointer (RFC 6901)` }
    return { key, tokens }
  }
  const tokens: string[] = []
  if (rawPointer === undefined) return { key, tokens }
  for (const rawToken of rawPointer.split('/')) {
    const decoded = percentDecode(rawToken)
    if (decoded === undefined) return { problem: 'A pointer segment is not valid percent-encoded UTF-8' }
    const token = unescapeToken(decoded)
    if (token === undefined) return { problem: `Pointer segment "${decoded}" has a "~" not followed by 0 or 1` }
    tokens.push(token)
  }
  return { key, tokens }
}

/** Why a key is unusable, or undefined when it is fine. */
export function checkKey (key: string): string | undefined {
  if (key.length === 0) return 'The key is empty'
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return `The key is longer than ${MAX_KEY_BYTES} bytes`
  if (CONTROL_CHARACTER.test(key)) return 'The key contains a control character'
  return undefined
}

function percentDecode (text: string): string | undefined {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

function unescapeToken (token: string): string | undefined {
  if (!token.includes('~')) return token
  if (/~(?![01])/.test(token)) return undefined
  return token.replaceAll('~1', '/').replaceAll('~0', '~')
}

/** The JSON Pointer (RFC 6901) for tokens, for messages and headers. */
export function formatPointer (tokens: readonly string[]): string {
  return tokens.map((token) => '/' + token.replaceAll('~', '~0').replaceAll('/', '~1')).join('')
}

/**
 * RedisJSON's path parser skips spaces and line feeds after an opening quote, so `[" a"]` selects the
 * member "a": a member whose name starts with one cannot be addressed by a path at all.
 */
const SKIPPED_BY_REDISJSON = /^[ \n]/

export function isUnaddressable (token: string): boolean {
  return SKIPPED_BY_REDISJSON.test(token)
}

/**
 * Whether a member's step needs a backslash escape: its name holds a backslash, or both kinds of
 * quote. RedisJSON reads through such a step, but its writes miss the member, and a write that adds
 * one keeps the escapes in the new member's name.
 */
function needsEscapes (name: string): boolean {
  return name.includes('\\') || (name.includes('"') && name.includes("'"))
}

/**
 * The first token no RedisJSON path can express, if any. With `lastMayBe`, a last such token is
 * fine: the Lua scripts reach that member through the text of its parent object.
 */
export function unaddressableToken (tokens: readonly string[], lastMayBe = false): string | undefined {
  return (lastMayBe ? tokens.slice(0, -1) : tokens).find(isUnaddressable)
}

/** As unaddressableToken, for a write, which also cannot pass through a step that needs escapes. */
export function unwritableToken (tokens: readonly string[], lastMayBe = false): string | undefined {
  return (lastMayBe ? tokens.slice(0, -1) : tokens).find((token) => isUnaddressable(token) || needsEscapes(token))
}

/**
 * The RedisJSON step selecting an object member: a bracket in double quotes, or in single quotes when
 * the name holds a double quote, so that only names needing escapes get them (`\` and `"`).
 */
export function memberStep (name: string): string {
  if (!name.includes('"') && !name.includes('\\')) return `["${name}"]`
  if (!needsEscapes(name)) return `['${name}']`
  return '["' + name.replace(/["\\]/g, '\\$&') + '"]'
}

/**
 * How a token may address an array element, for the Lua resolver: the token itself when it is a
 * canonical RFC 6901 index, '-' for the position after the last element, '' when it can only be a
 * member name.
 */
export function indexToken (token: string): string {
  if (ARRAY_INDEX.test(token)) return token
  return token === '-' ? '-' : ''
}

/**
 * How a pointer becomes a RedisJSON path. A token of digits means an element when its parent is an
 * array and a member when it is an object, which only Redis can tell: `guess` reads every such token
 * as an index (right whenever it matches, since an index never matches a member), and `steps` gives
 * the Lua resolver both readings, member step then index token, per token.
 */
export interface PathPlan {
  guess: string
  /** Whether `guess` may miss a value that the Lua resolver would find. */
  ambiguous: boolean
  /** False when a token can only be reached by the resolver, so `guess` must not be used. */
  direct: boolean
  steps: string[]
}

export function planPath (tokens: readonly string[], writing = false): PathPlan {
  let guess = '$'
  let ambiguous = false
  let direct = true
  const steps: string[] = []
  for (let position = 0; position < tokens.length; position++) {
    const token = tokens[position]!
    if (isUnaddressable(token)) {
      // Only ever the last token (see unaddressableToken); the resolver finds it by its JSON name.
      direct = false
      steps.push('', JSON.stringify(token))
      continue
    }
    const member = memberStep(token)
    const index = ARRAY_INDEX.test(token)
    guess += index ? `[${token}]` : member
    ambiguous ||= index
    // A write reaches a last member whose step needs escapes by its JSON name too (see unwritableToken).
    if (writing && position === tokens.length - 1 && needsEscapes(token)) steps.push('', JSON.stringify(token))
    else steps.push(member, indexToken(token))
  }
  return { guess, ambiguous, direct, steps }
}

/** The tokens of a JSON Pointer string (RFC 6901), or undefined when it is not one. */
export function parsePointer (pointer: string): string[] | undefined {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) return undefined
  const tokens: string[] = []
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapeToken(raw)
    if (token === undefined) return undefined
    tokens.push(token)
  }
  return tokens
}

/** The Lua form of a pointer, for a read or a write: its token count, then member step and index token per token. */
export function pointerArgs (tokens: readonly string[], writing = false): string[] {
  return [String(tokens.length), ...planPath(tokens, writing).steps]
}
