import type { ErrorObject, ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { InvalidSchemaError, withExtensions } from '../errors.js'
import { addDocumentFormats } from './formats.js'
import { createSchemaPatterns, type SchemaPatterns } from './linear-regexp.js'
import { refusedPatterns } from './schema-patterns.js'
import { addLinearUniqueItems } from './unique-items.js'

/** One place where a value breaks its schema: a JSON Pointer into the value, and why. */
export interface Violation {
  pointer: string
  detail: string
  keyword: string
  schemaPath: string
}

/** Checks a document; answers its violations, or undefined when it conforms. */
export type DocumentValidator = (document: unknown) => Violation[] | undefined

/** A problem lists at most this many violations; the first ones are the most useful. */
const MAX_VIOLATIONS = 50

/**
 * An ajv for user documents, never for the service's own bodies: draft 2020-12 with formats, and it
 * never coerces, adds defaults or removes properties, so validating a document cannot change it.
 * Unknown keywords are ignored (annotations), as the specification says. Patterns run on RE2 (re2js),
 * in time linear in the text, so no document can make one backtrack for seconds; uniqueItems runs in
 * linear time too. A fresh instance per schema keeps collections apart: two schemas may share an `$id`.
 */
export function createDocumentAjv (patterns: SchemaPatterns = createSchemaPatterns()): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    validateFormats: true,
    code: { regExp: patterns.engine }
  })
  addDocumentFormats(ajv)
  addLinearUniqueItems(ajv)
  return ajv
}

/** Compiles a collection's schema; a schema that is not valid 2020-12 throws InvalidSchemaError (400). */
export function compileDocumentSchema (schema: unknown): DocumentValidator {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw new InvalidSchemaError('A JSON Schema is an object or a boolean')
  }
  if (typeof schema === 'object' && '$async' in schema) {
    throw new InvalidSchemaError('Asynchronous schemas ($async) are not supported')
  }
  const patterns = createSchemaPatterns()
  const ajv = createDocumentAjv(patterns)
  let validate: ValidateFunction
  try {
    if (!ajv.validateSchema(schema)) {
      throw withExtensions(new InvalidSchemaError('The schema does not conform to the JSON Schema 2020-12 meta-schema'),
        { errors: violationsOf(ajv.errors ?? []).map((violation) => ({ in: 'body', ...violation })) })
    }
    const refused = refusedPatterns(schema, patterns)
    if (refused.length > 0) {
      throw withExtensions(new InvalidSchemaError('The schema has patterns that cannot run in linear time (see Validated collections in the README)'),
        { errors: refused.slice(0, MAX_VIOLATIONS).map((pattern) => ({ in: 'body', ...pattern })) })
    }
    validate = ajv.compile(schema)
  } catch (error) {
    if (error instanceof InvalidSchemaError) throw error
    throw new InvalidSchemaError(`The schema cannot be compiled: ${(error as Error).message}`)
  }
  return (document) => validate(document) ? undefined : violationsOf(validate.errors ?? [])
}

function violationsOf (errors: readonly ErrorObject[]): Violation[] {
  return errors.slice(0, MAX_VIOLATIONS).map((error) => ({
    pointer: error.instancePath,
    detail: error.message ?? 'is invalid',
    keyword: error.keyword,
    schemaPath: error.schemaPath
  }))
}
