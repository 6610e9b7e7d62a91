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
export function createDocumentAjv (patterns: SchemaPatterns = createSchemaPatterns(), validateSchema = true): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    validateSchema,
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

/**
 * Compiles a collection's schema; a schema that is not valid 2020-12 throws InvalidSchemaError (400).
 * `checker` reads it against the meta-schema: a validation worker passes the one it keeps, since an ajv
 * compiles the meta-schema before its first schema (13 to 40 ms, where the schema itself may take 1).
 */
export function compileDocumentSchema (schema: unknown, checker: Ajv2020 = createDocumentAjv()): DocumentValidator {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw new InvalidSchemaError('A JSON Schema is an object or a boolean')
  }
  if (typeof schema === 'object' && '$async' in schema) {
    throw new InvalidSchemaError('Asynchronous schemas ($async) are not supported')
  }
  const patterns = createSchemaPatterns()
  // The checker has read the schema against the meta-schema: this ajv only compiles it.
  const ajv = createDocumentAjv(patterns, false)
  let validate: ValidateFunction
  try {
    if (!checker.validateSchema(schema)) {
      throw withExtensions(new InvalidSchemaError('The schema does not conform to the JSON Schema 2020-12 meta-schema'),
        { errors: violationsOf(checker.errors ?? []).map((violation) => ({ in: 'body', ...violation })) })
    }
    const refused = refusedPatterns(schema, patterns)
    if (refused.length > 0) {
      throw withExtensions(new InvalidSchemaError('The schema has patterns that cannot run in linear time (see docs/collections.md)'),
        { errors: refused.slice(0, MAX_VIOLATIONS).map((pattern) => ({ in: 'body', ...pattern })) })
    }
    validate = ajv.compile(schema)
    for (const sample of SAMPLES) checked(validate, sample)
  } catch (error) {
    if (error instanceof InvalidSchemaError) throw error
    throw new InvalidSchemaError(`The schema cannot be compiled: ${(error as Error).message}`)
  }
  return (document) => checked(validate, document) ? undefined : violationsOf(validate.errors ?? [])
}

/** One value of each JSON type: a schema that recurses without end on every value (`{"$ref":"#"}`) fails on these. */
const SAMPLES = [null, true, 0, '', [], {}]

/**
 * Runs a validator; a `$ref` cycle that consumes nothing of the document overflows the stack, which is
 * the schema's fault, not the document's.
 */
function checked (validate: ValidateFunction, document: unknown): boolean {
  try {
    return validate(document) as boolean
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    throw new InvalidSchemaError('The schema refers to itself without end (a $ref cycle that consumes nothing of the document)')
  }
}

function violationsOf (errors: readonly ErrorObject[]): Violation[] {
  return errors.slice(0, MAX_VIOLATIONS).map((error) => ({
    pointer: error.instancePath,
    detail: error.message ?? 'is invalid',
    keyword: error.keyword,
    schemaPath: error.schemaPath
  }))
}
