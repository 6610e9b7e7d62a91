import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
/** The numeric formats OpenAPI defines, which route schemas give so that generated clients pick wide types. */
const NUMERIC_FORMATS = ['int32', 'int64', 'float', 'double'] as const

/**
 * Route schema compilation with two ajv instances. Bodies are validated strictly: no coercion, no
 * defaults, nothing removed, so `"1"` is never taken for 1. Query strings, params and headers arrive as
 * text, so there types are coerced and defaults applied. Both know the `shared` schemas that routes
 * reference by `$id`.
 */
export function createValidatorCompiler (shared: readonly object[] = []): FastifySchemaCompiler<unknown> {
  const strict = new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, discriminator: true, allErrors: false })
  const lenient = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, discriminator: true, allErrors: false })
  addFormats(strict, [...NUMERIC_FORMATS])
  addFormats(lenient, [...NUMERIC_FORMATS])
  for (const schema of shared) {
    strict.addSchema(schema)
    lenient.addSchema(schema)
  }
  return ({ schema, httpPart }) => httpPart === 'body'
    ? strict.compile(schema as object)
    : lenient.compile(httpPart === 'headers' ? lowerCaseHeaderNames(schema as HeadersSchema) : schema as object)
}

interface HeadersSchema { properties?: Record<string, unknown>, required?: string[] }

/**
 * Node lowercases the names of request headers; fastify adapts header schemas to that for its own
 * compiler only, so this one does it for the schemas it gets (documented as `If-Match`, checked as `if-match`).
 */
function lowerCaseHeaderNames (schema: HeadersSchema): HeadersSchema {
  return {
    ...schema,
    ...(schema.properties
      ? { properties: Object.fromEntries(Object.entries(schema.properties).map(([name, value]) => [name.toLowerCase(), value])) }
      : {}),
    ...(schema.required ? { required: schema.required.map((name) => name.toLowerCase()) } : {})
  }
}
