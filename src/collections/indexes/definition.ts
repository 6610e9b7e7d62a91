/**
 * A collection's index definition: which pointers are searchable, as what. Pure: the definition is checked
 * and turned into RediSearch's FT.CREATE arguments here, and nothing a client sends becomes a field name
 * (fields are `f0`, `f1`... in the order declared; their paths are built by memberStep).
 */
import { BadRequestError } from '../../errors.js'
import { formatPointer, isUnaddressable, memberStep, parsePointer } from '../../documents/pointer.js'

export const FIELD_TYPES = ['tag', 'text', 'number', 'boolean'] as const
export type FieldType = typeof FIELD_TYPES[number]
export const MAX_INDEX_FIELDS = 32

export interface FieldDeclaration {
  pointer: string
  type: FieldType
  sortable?: boolean
}

export interface IndexDefinition {
  fields: FieldDeclaration[]
}

/** A declared field as the index holds it. */
export interface IndexField extends FieldDeclaration {
  tokens: string[]
  /** Its RediSearch attribute name: never client text. */
  name: string
}

/** Splits a tag value's members: filter values holding it are refused, and documents holding it are found by the companion attribute. */
export const TAG_SEPARATOR = '\u001f'

/**
 * What a tag field's companion attribute indexes (see controlAttributeOf): its strings holding a control
 * character other than white space. RediSearch's JSONPath regular expressions take no escape, so the class is
 * the nearest one it can say around U+0000 and U+001F.
 */
const CONTROL_STRINGS = '[?(@ =~ "[[:cntrl:]--[[:space:]]]")]'

/**
 * The attribute indexing a tag field's strings that hold a control character other than white space: those
 * RediSearch may read only in part (up to a U+0000, split at U+001F) are among them. Never client text.
 */
export function controlAttributeOf (field: Pick<IndexField, 'name'>): string {
  return 'c' + field.name.slice(1)
}

/** A canonical array index: an index pointer names object members only, so the path it becomes is certain. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*|-)$/

/** The fields of a definition, checked; throws 400 naming the first bad one. */
export function indexFieldsOf (definition: IndexDefinition): IndexField[] {
  const seen = new Set<string>()
  return definition.fields.map((field, position) => {
    const at = `/fields/${position}`
    const tokens = parsePointer(field.pointer)
    if (tokens === undefined) throw new BadRequestError(`${at}/pointer ${JSON.stringify(field.pointer)} is not a JSON Pointer`)
    if (tokens.length === 0) throw new BadRequestError(`${at}/pointer: the whole document cannot be a field; name a member`)
    const odd = tokens.find((token) => ARRAY_INDEX.test(token) || isUnaddressable(token) || token.includes('\u0000'))
    if (odd !== undefined) {
      throw new BadRequestError(`${at}/pointer ${JSON.stringify(field.pointer)}: the token ${JSON.stringify(odd)} ` +
        'cannot be indexed (an index names object members, not array positions, no member starting with a space or line feed, ' +
        'and none holding a NUL character)')
    }
    const pointer = formatPointer(tokens)
    if (seen.has(pointer)) throw new BadRequestError(`${at}/pointer ${JSON.stringify(pointer)} is declared twice`)
    seen.add(pointer)
    if (field.sortable === true && field.type !== 'tag' && field.type !== 'number') {
      throw new BadRequestError(`${at}: only tag and number fields can be sortable`)
    }
    return { pointer, type: field.type, ...(field.sortable === true ? { sortable: true } : {}), tokens, name: `f${position}` }
  })
}

/** The definition as stored and answered: pointers in their canonical form, `sortable` only when true. */
export function canonicalDefinition (fields: readonly IndexField[]): IndexDefinition {
  return { fields: fields.map(({ pointer, type, sortable }) => ({ pointer, type, ...(sortable ? { sortable } : {}) })) }
}

/** The RediSearch JSONPath of a field. */
export function jsonPathOf (tokens: readonly string[]): string {
  return '$' + tokens.map(memberStep).join('')
}

/**
 * FT.CREATE's arguments after the index name: JSON documents under `prefix`, no stop words, and per field its
 * attribute. Tags are case-sensitive and keep values whole (no separator a JSON string uses), and each has a
 * companion attribute (controlAttributeOf); every field records where it is missing, so that `$exists` is an
 * index lookup.
 */
export function createArguments (prefix: string, fields: readonly IndexField[]): string[] {
  const args = ['ON', 'JSON', 'PREFIX', '1', prefix, 'STOPWORDS', '0', 'SCHEMA']
  for (const field of fields) {
    args.push(jsonPathOf(field.tokens), 'AS', field.name)
    switch (field.type) {
      case 'tag':
        args.push('TAG', 'SEPARATOR', TAG_SEPARATOR, 'CASESENSITIVE', 'INDEXEMPTY', 'INDEXMISSING', ...(field.sortable ? ['SORTABLE', 'UNF'] : []),
          jsonPathOf(field.tokens) + CONTROL_STRINGS, 'AS', controlAttributeOf(field), 'TAG', 'SEPARATOR', TAG_SEPARATOR, 'INDEXEMPTY', 'INDEXMISSING')
        break
      case 'boolean':
        args.push('TAG', 'INDEXMISSING')
        break
      case 'number':
        args.push('NUMERIC', 'INDEXMISSING', ...(field.sortable ? ['SORTABLE'] : []))
        break
      case 'text':
        args.push('TEXT', 'NOSTEM', 'INDEXMISSING')
        break
    }
  }
  return args
}

const JSON_TYPES: Record<FieldType, readonly string[]> = {
  tag: ['string'],
  text: ['string'],
  number: ['number', 'integer'],
  boolean: ['boolean']
}

/**
 * Why a field's type disagrees with the collection's schema, when the schema says what the pointer holds:
 * its `type` there (through `properties`, and `items` for arrays of values) must allow the field's type, or
 * an array of it (not for a sortable field). Where the schema says nothing, nothing is refused.
 */
export function schemaDisagreement (fields: readonly IndexField[], schema: unknown): string | undefined {
  for (const field of fields) {
    const at = subschemaAt(schema, field.tokens)
    const types = typesOf(at)
    if (types === undefined) continue
    const wanted = JSON_TYPES[field.type]
    if (types.some((type) => wanted.includes(type))) continue
    if (!field.sortable && types.includes('array')) {
      const items = typesOf(isObject(at) ? at.items : undefined)
      if (items === undefined || items.some((type) => wanted.includes(type))) continue
    }
    return `The collection's schema has ${JSON.stringify(types.join(' or '))} at ${field.pointer}, not what a ${field.sortable ? 'sortable ' : ''}${field.type} field indexes`
  }
  return undefined
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function subschemaAt (schema: unknown, tokens: readonly string[]): unknown {
  let at = schema
  for (const token of tokens) {
    if (!isObject(at) || !isObject(at.properties) || !Object.hasOwn(at.properties, token)) return undefined
    at = at.properties[token]
  }
  return at
}

function typesOf (schema: unknown): string[] | undefined {
  if (!isObject(schema)) return undefined
  if (typeof schema.type === 'string') return [schema.type]
  if (Array.isArray(schema.type) && schema.type.every((type) => typeof type === 'string')) return schema.type as string[]
  return undefined
}
