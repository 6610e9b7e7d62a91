/**
 * The query filter: a JSON grammar on JSON Pointers, compiled to a RediSearch query (DIALECT 2) where every
 * value is a parameter (`$p0`...) and every attribute comes from the index. Pure: no fastify, no Redis.
 *
 * A filter is an object whose members all hold: a pointer member holds a value (`$eq`) or an object of
 * operators; `$and` and `$or` hold lists of filters, `$not` a filter.
 */
import { BadRequestError } from '../../errors.js'
import { TAG_SEPARATOR, type IndexField } from './definition.js'

export interface CompiledFilter {
  query: string
  /** Names and values, as PARAMS takes them. */
  params: string[]
  /** Its `$prefix` conditions, which RediSearch expands to at most MAXEXPANSIONS values (see expansion.ts): attribute and parameter value. */
  prefixes?: Array<{ attribute: string, value: string }>
  /** The tag fields whose values it compares ($eq $ne $in $nin $prefix), when any (see control-values.ts). */
  compared?: IndexField[]
  /**
   * With `compared`: a query (on the same params) matching at least every document the filter matches, whether
   * RediSearch reads its tag values whole or only in part: the filter's top-level conditions that compare no
   * tag value under a negation. RediSearch's reading of a tag value can only add to what an affirmed `$eq`,
   * `$in` or `$prefix` matches, never take from it.
   */
  superset?: string
}

const MAX_NODES = 256
const MAX_DEPTH = 8
const MAX_LIST = 100
const MAX_VALUE_BYTES = 1024
/** Least length of a `$prefix`: RediSearch expands no shorter prefix (its MINPREFIX). */
export const MIN_PREFIX = 2
/** The white space RediSearch strips from both ends of a tag value when it indexes it. */
const TAG_BLANKS = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g
/**
 * What splits text into words, as RediSearch 2.10 tokenizes TEXT fields: tab, space and every ASCII
 * punctuation mark but `\` (an escape) and `_`. Line feeds, other white space and non-ASCII marks are
 * parts of words.
 */
export const WORD_SEPARATORS = /[\t !"#$%&'()*+,\-./:;<=>?@[\]^`{|}~]+/
/** What a `$text` cannot hold and be answered exactly: RediSearch reads `\` as an escape, and ends or drops words at control characters. */
const UNANSWERABLE_TEXT = /\\|(?!\t)\p{Cc}/u

const OPERATORS: Record<IndexField['type'], readonly string[]> = {
  tag: ['$eq', '$ne', '$in', '$nin', '$prefix', '$exists'],
  boolean: ['$eq', '$ne', '$in', '$nin', '$exists'],
  number: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'],
  text: ['$text', '$exists']
}

interface Node {
  query: string
  /** Whether the node selects documents by what they hold, rather than by what they lack. */
  positive: boolean
  /** When the node is a negation (`-X`), the query it negates (X). */
  negates?: string
  /** Whether it compares a tag value under a negation ($ne, $nin, $not). */
  negatesTags?: boolean
  /** Whether it compares a tag value outside a negation. */
  affirmsTags?: boolean
}

/** A node holding its children's tag comparisons. */
function holding (node: Node, children: readonly Node[]): Node {
  const negatesTags = children.some((child) => child.negatesTags === true)
  const affirmsTags = children.some((child) => child.affirmsTags === true)
  return { ...node, ...(negatesTags ? { negatesTags } : {}), ...(affirmsTags ? { affirmsTags } : {}) }
}

/*
 * RediSearch 2.10 loses documents (the first ones of the index, in our tests) of an intersection that holds
 * a negation, when that intersection lies in a union that itself lies in an intersection:
 * `A (B | (C -D))` misses matches that `A (B | -(-C | D))` finds. So under a union, an intersection holding
 * a negation is written as the negation of the union of its parts' negations (De Morgan), which RediSearch
 * answers right; elsewhere intersections are written as they are.
 */

/** The parts of an intersection, written as RediSearch answers them under a union or not (see above). */
function intersection (parts: readonly Node[], underUnion: boolean, wrap: boolean): Node {
  const positive = parts.some((part) => part.positive)
  // One part in parentheses is that part to RediSearch: a negation stays one.
  if (parts.length === 1) return { ...parts[0]!, query: wrap ? `(${parts[0]!.query})` : parts[0]!.query }
  if (underUnion && parts.length > 1 && parts.some((part) => part.negates !== undefined)) {
    const negations = parts.map((part) => `(${part.negates ?? `-(${part.query})`})`).join(' | ')
    return { query: `-(${negations})`, positive, negates: negations }
  }
  return { query: parts.map((part) => wrap ? `(${part.query})` : part.query).join(' '), positive }
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Where the filter's places are by default: `filter/~1price/$gt`. */
const inFilter = (at: string) => `filter${at}`

/**
 * Compiles a filter against the index's fields; 400 naming the place of anything wrong, a JSON Pointer
 * into the filter that `placeName` words (the short GET form names its query parameters instead).
 */
export function compileFilter (filter: unknown, fields: readonly IndexField[], placeName: (at: string) => string = inFilter): CompiledFilter {
  const byPointer = new Map(fields.map((field) => [field.pointer, field]))
  const params: string[] = []
  let nodes = 0
  const prefixes: NonNullable<CompiledFilter['prefixes']> = []
  const compared = new Set<IndexField>()

  const param = (value: string) => {
    const name = `p${params.length / 2}`
    params.push(name, value)
    return '$' + name
  }

  function fail (at: string, detail: string): never {
    throw new BadRequestError(`${placeName(at)}: ${detail}`)
  }

  function compile (value: unknown, at: string, depth: number, underUnion: boolean, top?: Node[]): Node {
    if (!isPlainObject(value)) fail(at, 'must be an object')
    if (depth > MAX_DEPTH) fail(at, `nests deeper than ${MAX_DEPTH}`)
    const parts: Node[] = []
    for (const [member, operand] of Object.entries(value)) {
      if (++nodes > MAX_NODES) fail(at, `has more than ${MAX_NODES} conditions`)
      const place = `${at}/${member.replaceAll('~', '~0').replaceAll('/', '~1')}`
      if (member === '$and' || member === '$or') {
        if (!Array.isArray(operand) || operand.length === 0 || operand.length > MAX_LIST) fail(place, `must be a list of 1 to ${MAX_LIST} filters`)
        const inUnion = underUnion || member === '$or'
        const children = operand.map((child, index) => compile(child, `${place}/${index}`, depth + 1, inUnion))
        parts.push(holding(member === '$and'
          ? intersection(children, underUnion, false)
          : { query: children.map((child) => `(${child.query})`).join(' | '), positive: children.every((child) => child.positive) }, children))
      } else if (member === '$not') {
        const child = compile(operand, place, depth + 1, underUnion)
        parts.push({
          query: `-(${child.query})`, positive: false, negates: child.query,
          ...(child.affirmsTags ? { negatesTags: true } : {}), ...(child.negatesTags ? { affirmsTags: true } : {})
        })
      } else if (member.startsWith('/')) {
        const field = byPointer.get(member)
        if (field === undefined) fail(place, `${JSON.stringify(member)} is not a field of the collection's index`)
        parts.push(...conditions(field, operand, place))
      } else {
        fail(place, `${JSON.stringify(member)} is neither a pointer (starting with "/") nor $and, $or or $not`)
      }
    }
    top?.push(...parts)
    if (parts.length === 0) return { query: '*', positive: true }
    return holding(intersection(parts, underUnion, true), parts)
  }

  function conditions (field: IndexField, operand: unknown, at: string): Node[] {
    const operators = isPlainObject(operand) && Object.keys(operand).some((name) => name.startsWith('$'))
      ? operand
      : { $eq: operand }
    const entries = Object.entries(operators)
    if (entries.length === 0) fail(at, 'names no operator')
    return entries.map(([operator, value]) => {
      if (!OPERATORS[field.type].includes(operator)) {
        fail(`${at}/${operator}`, `a ${field.type} field takes ${OPERATORS[field.type].join(', ')}`)
      }
      const node = condition(field, operator, value, `${at}/${operator}`)
      if (field.type !== 'tag' || operator === '$exists') return node
      compared.add(field)
      return { ...node, ...(operator === '$ne' || operator === '$nin' ? { negatesTags: true } : { affirmsTags: true }) }
    })
  }

  function condition (field: IndexField, operator: string, value: unknown, at: string): Node {
    const attribute = '@' + field.name
    switch (operator) {
      case '$exists':
        if (typeof value !== 'boolean') fail(at, 'takes true or false')
        return value
          ? { query: `-ismissing(${attribute})`, positive: false, negates: `ismissing(${attribute})` }
          : { query: `ismissing(${attribute})`, positive: true }
      case '$eq':
      case '$ne': {
        const match = matchOf(field, [value], at)
        return operator === '$eq' ? { query: match, positive: true } : { query: `-${match}`, positive: false, negates: match }
      }
      case '$in':
      case '$nin': {
        if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST) fail(at, `takes a list of 1 to ${MAX_LIST} values`)
        const match = matchOf(field, value, at)
        return operator === '$in' ? { query: match, positive: true } : { query: `-${match}`, positive: false, negates: match }
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const bound = param(numberOf(value, at))
        const exclusive = operator === '$gt' || operator === '$lt' ? '(' : ''
        const range = operator.startsWith('$g') ? `[${exclusive}${bound} +inf]` : `[-inf ${exclusive}${bound}]`
        return { query: `${attribute}:${range}`, positive: true }
      }
      case '$prefix': {
        const prefix = tagValueOf(value, at)
        if ([...prefix].length < MIN_PREFIX) fail(at, `takes a prefix of at least ${MIN_PREFIX} characters (white space around it aside)`)
        prefixes.push({ attribute, value: tagParam(prefix) })
        return { query: `${attribute}:{${param(tagParam(prefix))}*}`, positive: true }
      }
      case '$text': {
        if (typeof value !== 'string' || Buffer.byteLength(value) > MAX_VALUE_BYTES) fail(at, `takes a string of at most ${MAX_VALUE_BYTES} bytes`)
        if (UNANSWERABLE_TEXT.test(value)) fail(at, 'takes no backslash and no control character but tab: RediSearch reads them otherwise in a text field')
        const words = textWords(value)
        if (words.length === 0) fail(at, 'takes at least one word (punctuation alone makes none)')
        if (words.length > MAX_LIST) fail(at, `takes at most ${MAX_LIST} words`)
        return { query: `${attribute}:(${words.map((word) => param(word)).join(' ')})`, positive: true }
      }
    }
    return fail(at, 'is not an operator')
  }

  /** `@f:{$a | $b}` for tags and booleans, a union of one-number ranges for numbers. */
  function matchOf (field: IndexField, values: unknown[], at: string): string {
    const attribute = '@' + field.name
    switch (field.type) {
      case 'tag':
        return `${attribute}:{${values.map((value, index) => param(tagParam(tagValueOf(value, values.length > 1 ? `${at}/${index}` : at)))).join(' | ')}}`
      case 'boolean':
        return `${attribute}:{${values.map((value, index) => {
          if (typeof value !== 'boolean') fail(values.length > 1 ? `${at}/${index}` : at, 'takes true or false')
          return String(value)
        }).join(' | ')}}`
      case 'number':
        return '(' + values.map((value, index) => {
          const number = param(numberOf(value, values.length > 1 ? `${at}/${index}` : at))
          return `${attribute}:[${number} ${number}]`
        }).join(' | ') + ')'
      default:
        return fail(at, 'does not apply to a text field: use $text')
    }
  }

  function tagValueOf (value: unknown, at: string): string {
    if (typeof value !== 'string') fail(at, 'takes a string')
    if (Buffer.byteLength(value) > MAX_VALUE_BYTES) fail(at, `takes a string of at most ${MAX_VALUE_BYTES} bytes`)
    if (value.includes(TAG_SEPARATOR)) fail(at, 'takes no string holding U+001F')
    if (value.includes('\u0000')) fail(at, 'takes no string holding U+0000: RediSearch indexes a value only up to its first U+0000')
    return value.replace(TAG_BLANKS, '')
  }

  /** A tag value as a parameter: RediSearch drops a backslash before punctuation in it, so each is doubled. */
  function tagParam (value: string): string {
    return value.replaceAll('\\', '\\\\')
  }

  /** The words of a `$text`, as RediSearch finds them: split at its separators, A to Z lowercased, every other letter as it is. */
  function textWords (text: string): string[] {
    return text.split(WORD_SEPARATORS).filter((word) => word !== '').map((word) => word.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()))
  }

  function numberOf (value: unknown, at: string): string {
    if (typeof value !== 'number' || !Number.isFinite(value)) fail(at, 'takes a number')
    return String(value)
  }

  const top: Node[] = []
  const root = compile(filter ?? {}, '', 0, false, top)
  if (!root.positive) {
    throw new BadRequestError('The filter only says what documents lack ($ne, $nin, $not, $exists: true): add a condition they must meet')
  }
  const kept = top.filter((part) => part.negatesTags !== true)
  return {
    query: root.query,
    params,
    ...(prefixes.length > 0 ? { prefixes } : {}),
    ...(compared.size > 0 ? { compared: [...compared], superset: kept.length === 0 ? '*' : kept.map((part) => `(${part.query})`).join(' ') } : {})
  }
}
