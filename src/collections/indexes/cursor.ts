/**
 * Keyset positions of a query's pages, and the cursors that carry them. Pure: no fastify, no Redis.
 *
 * A cursor is opaque to clients: base64url of JSON holding a digest of the query it was issued for and the
 * position of the last item it answered (that item's key and sort value). It needs no signature: a forged
 * one can only name another position in the same query, and every page is still filtered by the query and
 * the caller's scopes. Positions hold no instance state, so any instance continues any cursor.
 */
import { createHash } from 'node:crypto'
import { BadRequestError } from '../../errors.js'

export type SortValue = number | string

/** Where a page ends: the last item's key and, under a sort, its sort value (none when it has none). */
export interface Position {
  key: string
  value?: SortValue
}

const MAX_CURSOR_LENGTH = 4096

/** A digest of what makes a query the same query: the collection, the filter and the sort. */
export function queryDigest (collection: string, filter: unknown, sort: unknown): string {
  return createHash('sha256').update(JSON.stringify([collection, filter ?? {}, sort ?? []])).digest('base64url').slice(0, 22)
}

export function encodeCursor (digest: string, position: Position): string {
  return Buffer.from(JSON.stringify(position.value === undefined ? [digest, position.key] : [digest, position.key, position.value])).toString('base64url')
}

/** The position a cursor holds; 400 when it was not issued for this query. */
export function decodeCursor (cursor: string, digest: string): Position {
  let decoded: unknown
  try {
    decoded = cursor.length <= MAX_CURSOR_LENGTH ? JSON.parse(Buffer.from(cursor, 'base64url').toString()) : undefined
  } catch {
    decoded = undefined
  }
  if (Array.isArray(decoded) && decoded[0] === digest && typeof decoded[1] === 'string' && decoded.length <= 3) {
    const [, key, value] = decoded as [string, string, unknown]
    if (decoded.length === 2) return { key }
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return { key, value }
  }
  throw new BadRequestError('The cursor is not one this query issued (a cursor only continues the query it came from: same collection, filter and sort)')
}

/**
 * A string as an expression of RediSearch's expression language (FILTER). Its quoted literals drop a
 * backslash before any punctuation or space, however many there are, so no literal can hold every string:
 * text without `\` or `"` is one literal; other text is a format() of literal runs, each `"` given as
 * `'"'` and each backslash cut from a literal that keeps it (`"\b"` holds a backslash and a b). A line feed
 * ends a literal unless a backslash comes before it (every other control character but U+0000 reads as
 * itself; RediSearch's values end at a U+0000, so none reaches a literal).
 */
export function stringLiteral (text: string): string {
  if (!/["\\]/.test(text)) return literalRun(text)
  const parts = text.split(/(["\\])/).filter((part) => part !== '').map((part) =>
    part === '"' ? `'"'` : part === '\\' ? 'substr("\\b", 0, 1)' : literalRun(part))
  return `format("${'%s'.repeat(parts.length)}", ${parts.join(', ')})`
}

/** Text without `"` or `\` as one quoted literal. */
function literalRun (text: string): string {
  return `"${text.replaceAll('\n', '\\\n')}"`
}

/**
 * A number as a literal of RediSearch's expression language, which takes no exponent: the shortest
 * decimal that reads back as the same double, written out in full.
 */
export function numberLiteral (value: number): string {
  const shortest = String(value)
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(shortest)
  if (match === null) return shortest
  const [, sign, lead, rest = '', exponentText] = match
  const digits = lead! + rest
  const point = 1 + Number(exponentText)
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length)
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

/**
 * How keys compare in RediSearch's sorts and in these cursors: byte by byte in UTF-8, which is the order of
 * code points. Compared without encoding: UTF-16 code units follow code points, except that a surrogate
 * (half of a code point past U+FFFF) must come after every other unit.
 */
export function compareBytes (a: string, b: string): number {
  if (a === b) return 0
  const length = Math.min(a.length, b.length)
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index)
    const y = b.charCodeAt(index)
    if (x === y) continue
    const xSurrogate = x >= 0xd800 && x <= 0xdfff
    if (xSurrogate === (y >= 0xd800 && y <= 0xdfff)) return x < y ? -1 : 1
    return xSurrogate ? 1 : -1
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}
