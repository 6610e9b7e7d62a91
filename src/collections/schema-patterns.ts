import type { SchemaPatterns } from './linear-regexp.js'

/** A pattern of a schema that cannot run in linear time: where it is (a JSON Pointer into the schema) and why. */
export interface RefusedPattern {
  pointer: string
  keyword: 'pattern' | 'patternProperties'
  detail: string
}

/** Keywords of JSON Schema 2020-12 (and the drafts ajv still reads) whose value is one schema. */
const SCHEMA_KEYWORDS = new Set([
  'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'items', 'additionalItems', 'contains',
  'propertyNames', 'not', 'if', 'then', 'else', 'contentSchema'
])
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'])
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'])

/**
 * Every `pattern` and `patternProperties` name of a schema that the linear-time engine refuses, found by
 * walking the schema's keywords (values of `const`, `enum`, `default` or `examples` are data, never read).
 */
export function refusedPatterns (schema: unknown, patterns: SchemaPatterns): RefusedPattern[] {
  const refused: RefusedPattern[] = []
  const check = (source: string, pointer: string, keyword: RefusedPattern['keyword']) => {
    const problem = patterns.problemOf(source)
    if (problem) refused.push({ pointer, keyword, detail: `The pattern ${quoted(source)} ${problem}` })
  }
  const walk = (schema: unknown, pointer: string) => {
    if (!isObject(schema)) return
    for (const [keyword, value] of Object.entries(schema)) {
      const at = `${pointer}/${escape(keyword)}`
      if (keyword === 'pattern' && typeof value === 'string') check(value, at, 'pattern')
      if (keyword === 'patternProperties' && isObject(value)) {
        for (const name of Object.keys(value)) check(name, `${at}/${escape(name)}`, 'patternProperties')
      }
      if (SCHEMA_KEYWORDS.has(keyword)) walk(value, at)
      if (SCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) value.forEach((item, index) => { walk(item, `${at}/${index}`) })
      if (SCHEMA_MAP_KEYWORDS.has(keyword) && isObject(value)) {
        for (const [name, member] of Object.entries(value)) walk(member, `${at}/${escape(name)}`)
      }
    }
  }
  walk(schema, '')
  return refused
}

/** A pattern as a message quotes it: whole when short. */
function quoted (source: string): string {
  return JSON.stringify(source.length > 80 ? `${source.slice(0, 79)}…` : source)
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function escape (token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1')
}
