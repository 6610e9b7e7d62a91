/**
 * The short GET form of a query, `?/status=open&/total=gte:10&sort=-/total&fields=/title,/total&limit=20`,
 * read into the query the POST form takes. Pure: no fastify, no Redis.
 *
 * A parameter named by a pointer is one condition on it: `value` (equality) or `operator:value`. Its values
 * take their types from the index's fields, never from their looks: a tag or text field takes the text as
 * it is (`/code=10` is the string "10"), a number field a number in JSON's form, a boolean field `true` or
 * `false`. Lists (`in:`, `nin:`, `fields`) are split at commas, where `\,` is a comma and `\\` a backslash.
 */
import { BadRequestError } from '../../errors.js'
import type { IndexField } from './definition.js'
import type { QueryRequest } from './queries.js'

/** The query string, as the route's schema leaves it: pointer parameters hold every value given them. */
export interface ShortQueryString {
  sort?: string
  fields?: string
  limit?: number
  cursor?: string
  [parameter: string]: unknown
}

/** A query whose filter is read against the index's fields, and whose filter's places are query parameters. */
export interface ShortQuery extends Omit<QueryRequest, 'filter'> {
  /** The filter, as a POST body would say it, once the index's fields give its values their types. */
  filterOf: (fields: readonly IndexField[]) => Record<string, unknown>
  /** Words a place in that filter (a JSON Pointer into it) as the query parameter it came from. */
  placeName: (at: string) => string
}

/** Most conditions a query string holds: a larger filter is POSTed. */
export const MAX_SHORT_CONDITIONS = 100
const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'prefix', 'exists', 'text']
const LISTS = ['in', 'nin']
const NAMED = ['sort', 'fields', 'limit', 'cursor']
/** What the POST form alone takes. */
const POST_ONLY = ['$or', '$not', '$and', 'or', 'not', 'and', 'filter']
const OPERATOR_PREFIX = /^([A-Za-z]+):/
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/

export function fail (parameter: string, detail: string): never {
  throw new BadRequestError(`Query parameter ${JSON.stringify(parameter)}: ${detail}`)
}

/** A comma-separated list, `\,` a comma and `\\` a backslash in an item. */
export function listOf (text: string, parameter: string): string[] {
  const items: string[] = []
  let item = ''
  for (let at = 0; at < text.length; at++) {
    const character = text[at]!
    if (character === '\\') {
      const next = text[at + 1]
      if (next !== ',' && next !== '\\') fail(parameter, 'in a list, a backslash comes before a comma or a backslash only (\\, or \\\\)')
      item += next
      at++
    } else if (character === ',') {
      items.push(item)
      item = ''
    } else {
      item += character
    }
  }
  items.push(item)
  return items
}

/** `-/total` is descending, `/total` ascending. */
function sortOf (text: string): QueryRequest['sort'] {
  const descending = text.startsWith('-')
  const pointer = descending ? text.slice(1) : text
  if (!pointer.startsWith('/')) fail('sort', 'takes a pointer of the index, with `-` before it for a descending order (sort=-/total)')
  return [{ pointer, order: descending ? 'desc' : 'asc' }]
}

interface Condition { operator: string, text: string }

function conditionOf (parameter: string, value: string): Condition {
  const match = OPERATOR_PREFIX.exec(value)
  if (match === null) return { operator: 'eq', text: value }
  const operator = match[1]!
  if (!OPERATORS.includes(operator)) {
    fail(parameter, `${JSON.stringify(operator + ':')} is not an operator (${OPERATORS.map((name) => name + ':').join(' ')}); ` +
      `for a value that starts so, write eq:${value}`)
  }
  return { operator, text: value.slice(match[0].length) }
}

/** A value as the field's type takes it. */
function typedValue (parameter: string, field: IndexField | undefined, operator: string, text: string): unknown {
  if (operator === 'exists' || field?.type === 'boolean') {
    if (text !== 'true' && text !== 'false') fail(parameter, `${JSON.stringify(text)} is not true or false`)
    return text === 'true'
  }
  if (field?.type === 'number') {
    const number = JSON_NUMBER.test(text) ? Number(text) : NaN
    if (!Number.isFinite(number)) fail(parameter, `${JSON.stringify(text)} is not a number (a number field takes numbers as JSON writes them)`)
    return number
  }
  return text
}

/**
 * 400 naming the first parameter of a raw query string whose percent-encoding is not UTF-8: the query
 * string's parser would keep such text as it is, and the form takes no value it has to guess at.
 */
export function checkPercentEncoding (search: string): void {
  for (const part of search.split('&')) {
    if (decoded(part) !== undefined) continue
    const name = part.split('=', 1)[0]!
    fail(decoded(name) ?? name, 'bad percent-encoding (each % starts a byte %XX, and the bytes spell UTF-8)')
  }
}

/** The characters (code points) of a parsed query string's names and values, each name counted with each of its values. */
export function queryStringCharacters (query: Record<string, unknown>): number {
  let characters = 0
  for (const [name, given] of Object.entries(query)) {
    for (const value of Array.isArray(given) ? given : [given]) characters += codePoints(name) + codePoints(String(value))
  }
  return characters
}

/** A text's length in code points, as JSON Schema's maxLength counts it: a surrogate pair is one. */
function codePoints (text: string): number {
  return text.length - (text.match(SURROGATE_PAIRS)?.length ?? 0)
}

const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g

/** Form-encoded text decoded (`+` a space), or undefined when its percent-encoding is not UTF-8. */
function decoded (text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}

/** The filter a query string's pointer parameters say, once read against the index's fields. */
export interface ShortFilter {
  filterOf: (fields: readonly IndexField[]) => Record<string, unknown>
  placeName: (at: string) => string
}

/**
 * Reads a query string's conditions (every parameter but the `named` ones, which the caller reads), for a
 * route whose JSON form is POSTed to `route`; 400 naming any parameter it cannot take.
 */
export function shortFilterOf (query: Record<string, unknown>, named: readonly string[], route: string): ShortFilter {
  const conditions: Array<[string, Condition[]]> = []
  let count = 0
  for (const [parameter, given] of Object.entries(query)) {
    if (named.includes(parameter)) continue
    if (!parameter.startsWith('/')) {
      fail(parameter, POST_ONLY.includes(parameter)
        ? `$or, $not and filters in JSON take POST ${route}; conditions in a query string all hold`
        : `is neither ${named.join(', ')} nor a pointer (starting with "/") of the index`)
    }
    const values = Array.isArray(given) ? given as string[] : [String(given)]
    count += values.length
    if (count > MAX_SHORT_CONDITIONS) fail(parameter, `a query string holds at most ${MAX_SHORT_CONDITIONS} conditions; POST a larger query`)
    conditions.push([parameter, values.map((value) => conditionOf(parameter, value))])
  }
  return { filterOf: (indexFields) => filterOf(conditions, indexFields), placeName }
}

/** Reads the query string; 400 naming any parameter it cannot take. */
export function shortQueryOf (query: ShortQueryString): ShortQuery {
  const filter = shortFilterOf(query, NAMED, '/collections/{collection}/query')
  const fields = query.fields === undefined ? undefined : listOf(query.fields, 'fields')
  return {
    ...(query.sort === undefined ? {} : { sort: sortOf(query.sort) }),
    ...(fields === undefined ? {} : { fields }),
    ...(query.limit === undefined ? {} : { limit: query.limit }),
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    ...filter
  }
}

/**
 * The filter of the conditions, as one would write it in JSON: `{"/status": "open", "/total": {"$gte": 10}}`,
 * pointers and each pointer's operators in the order given; an operator given again for a pointer holds
 * through `$and` (`/tags=a&/tags=b` is `{"/tags": "a", "$and": [{"/tags": "b"}]}`).
 */
function filterOf (conditions: Array<[string, Condition[]]>, fields: readonly IndexField[]): Record<string, unknown> {
  const byPointer = new Map(fields.map((field) => [field.pointer, field]))
  const filter: Record<string, unknown> = {}
  const again: Array<Record<string, unknown>> = []
  for (const [parameter, given] of conditions) {
    const field = byPointer.get(parameter)
    const operators: Record<string, unknown> = {}
    for (const { operator, text } of given) {
      const value = LISTS.includes(operator)
        ? listOf(text, parameter).map((item) => typedValue(parameter, field, operator, item))
        : typedValue(parameter, field, operator, text)
      const name = '$' + operator
      if (Object.hasOwn(operators, name)) again.push({ [parameter]: operator === 'eq' ? value : { [name]: value } })
      else operators[name] = value
    }
    const names = Object.keys(operators)
    filter[parameter] = names.length === 1 && names[0] === '$eq' ? operators.$eq : operators
  }
  if (again.length > 0) filter.$and = again
  return filter
}

/** `/~1total/$gte` and `/$and/0/~1total/$gte/1` are the parameter `/total` (gte:). */
function placeName (at: string): string {
  const tokens = at.split('/').slice(1).map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
  const [parameter, operator] = tokens[0] === '$and' ? tokens.slice(2) : tokens
  if (parameter === undefined) return 'The query string'
  return `Query parameter ${JSON.stringify(parameter)}${operator?.startsWith('$') ? ` (${operator.slice(1)}:)` : ''}`
}
