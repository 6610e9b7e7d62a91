/**
 * A reference evaluator of queries, written from the rules of docs/queries.md (Queries) rather than from RediSearch:
 * which documents a filter matches, and in which order a sort puts them.
 */
import { parsePointer } from '../../../src/documents/pointer.js'

export interface FieldSpec { pointer: string, type: 'tag' | 'number' | 'boolean' | 'text', sortable?: boolean }
export type Doc = { key: string, value: Record<string, unknown> }

const BLANKS = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g

/** The value at a pointer of a document, when present. */
export function at (value: unknown, pointer: string): { present: boolean, value?: unknown } {
  let current = value
  for (const token of parsePointer(pointer)!) {
    if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, token)) return { present: false }
    current = (current as Record<string, unknown>)[token]
  }
  return { present: true, value: current }
}

function tagsOf (value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value]
  return values.filter((item): item is string => typeof item === 'string').map((item) => item.replace(BLANKS, ''))
}

/** What RediSearch 2.10 splits a TEXT field's words at: tab, space, ASCII punctuation but `\\` and `_`. */
const SEPARATORS = new Set('\t !"#$%&\'()*+,-./:;<=>?@[]^`{|}~')

/**
 * The words of a text field (a string or each string of an array): split at the separators, a backslash
 * taking the character after it into the word (and itself dropped), the text ending at U+0000, A to Z
 * lowercased and every other character kept as it is.
 */
export function wordsOf (value: unknown): string[] {
  const words: string[] = []
  for (const text of (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string')) {
    const cut = text.split('\0')[0]!
    let word = ''
    for (let index = 0; index < cut.length; index++) {
      const char = cut[index]!
      if (char === '\\') {
        if (index + 1 < cut.length) word += cut[++index]
      } else if (SEPARATORS.has(char)) {
        if (word !== '') words.push(word)
        word = ''
      } else {
        word += char
      }
    }
    if (word !== '') words.push(word)
  }
  return words.map((word) => word.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()))
}

function numbersOf (value: unknown): number[] {
  return (Array.isArray(value) ? value : [value]).filter((item): item is number => typeof item === 'number')
}

export function matches (doc: Doc, filter: Record<string, unknown>, fields: readonly FieldSpec[]): boolean {
  return Object.entries(filter).every(([member, operand]) => {
    if (member === '$and') return (operand as Array<Record<string, unknown>>).every((child) => matches(doc, child, fields))
    if (member === '$or') return (operand as Array<Record<string, unknown>>).some((child) => matches(doc, child, fields))
    if (member === '$not') return !matches(doc, operand as Record<string, unknown>, fields)
    const field = fields.find((candidate) => candidate.pointer === member)!
    const operators = typeof operand === 'object' && operand !== null && !Array.isArray(operand) ? operand as Record<string, unknown> : { $eq: operand }
    const found = at(doc.value, member)
    return Object.entries(operators).every(([operator, expected]) => condition(field, found, operator, expected))
  })
}

function condition (field: FieldSpec, found: { present: boolean, value?: unknown }, operator: string, expected: unknown): boolean {
  if (operator === '$exists') return found.present === expected
  const equals = (candidate: unknown): boolean => {
    if (field.type === 'tag') return tagsOf(found.value).includes((candidate as string).replace(BLANKS, ''))
    if (field.type === 'number') return numbersOf(found.value).includes(candidate as number)
    return found.value === candidate
  }
  switch (operator) {
    case '$eq': return equals(expected)
    case '$ne': return !equals(expected)
    case '$in': return (expected as unknown[]).some(equals)
    case '$nin': return !(expected as unknown[]).some(equals)
    case '$gt': return numbersOf(found.value).some((value) => value > (expected as number))
    case '$gte': return numbersOf(found.value).some((value) => value >= (expected as number))
    case '$lt': return numbersOf(found.value).some((value) => value < (expected as number))
    case '$lte': return numbersOf(found.value).some((value) => value <= (expected as number))
    case '$text': {
      const words = new Set(wordsOf(found.value))
      return wordsOf(expected).every((word) => words.has(word))
    }
    case '$prefix': return tagsOf(found.value).some((tag) => tag.startsWith((expected as string).replace(BLANKS, '')))
  }
  throw new Error(`no reference for ${operator}`)
}

/** The tag fields whose values a filter compares ($eq $ne $in $nin $prefix), by pointer. */
export function comparedTags (filter: Record<string, unknown>, fields: readonly FieldSpec[]): Set<string> {
  const found = new Set<string>()
  const walk = (node: Record<string, unknown>) => {
    for (const [member, operand] of Object.entries(node)) {
      if (member === '$and' || member === '$or') (operand as Array<Record<string, unknown>>).forEach(walk)
      else if (member === '$not') walk(operand as Record<string, unknown>)
      else if (fields.find((field) => field.pointer === member)?.type === 'tag') {
        const operators = typeof operand === 'object' && operand !== null && !Array.isArray(operand) ? Object.keys(operand) : ['$eq']
        if (operators.some((operator) => operator !== '$exists')) found.add(member)
      }
    }
  }
  walk(filter)
  return found
}

/** Whether a document holds U+0000 or U+001F in a string at a pointer (alone or in an array): RediSearch indexes such a tag value in part. */
export function holdsUnsearchable (doc: Doc, pointer: string): boolean {
  const { value } = at(doc.value, pointer)
  return (Array.isArray(value) ? value : [value]).some((item) => typeof item === 'string' && (item.includes('\u0000') || item.includes('\u001f')))
}

/** A document's value as a query with `fields` answers it: each projected pointer present, to its value. */
export function projected (doc: Doc, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.flatMap((pointer) => {
    const found = at(doc.value, pointer)
    return found.present ? [[pointer, found.value]] : []
  }))
}

const bytes = (text: string) => Buffer.from(text)

/** The documents in the query's order: the sort value (absent or null last), then the key byte by byte. */
export function ordered (docs: readonly Doc[], sort: { pointer: string, order: 'asc' | 'desc' } | undefined, type?: 'tag' | 'number'): Doc[] {
  const valueOf = (doc: Doc): string | number | undefined => {
    if (sort === undefined) return undefined
    const { value } = at(doc.value, sort.pointer)
    if (type === 'number') return typeof value === 'number' ? value : undefined
    return typeof value === 'string' ? value : undefined
  }
  const direction = sort?.order === 'desc' ? -1 : 1
  return [...docs].sort((a, b) => {
    const [va, vb] = [valueOf(a), valueOf(b)]
    if (va !== vb) {
      if (va === undefined) return 1
      if (vb === undefined) return -1
      const order = typeof va === 'number' ? va - (vb as number) : Buffer.compare(bytes(va), bytes(vb as string))
      if (order !== 0) return order * direction
    }
    return Buffer.compare(bytes(a.key), bytes(b.key))
  })
}
