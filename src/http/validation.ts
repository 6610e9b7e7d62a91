import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
/** The numeric formats OpenAPI defines, which route schemas give so that generated clients pick wide types. */
const NUMERIC_FORMATS = ['int32', 'int64', 'float', 'double'] as const

/**
 * Route schema compilation with two ajv instances. Bodies are validated strictly: no coercion, no
 * defaults, nothing removed, so `"1"` is never taken for 1. Query strings, params and headers arrive as
 * text, so there types are coerced and defaults applied. Both know the `shared` schemas that routes
 * reference by `$id`. The instances and what they compiled are kept per list of shared schemas, by each
 * schema's text: every app a process builds from the same schemas compiles each route's once.
 */
export function createValidatorCompiler (shared: readonly object[] = []): FastifySchemaCompiler<unknown> {
  let compilers = compilersByShared.get(shared)
  if (compilers === undefined) {
    compilers = { strict: compilerOf(false, shared), lenient: compilerOf(true, shared) }
    compilersByShared.set(shared, compilers)
  }
  const { strict, lenient } = compilers
  return ({ schema, httpPart }) => httpPart === 'body'
    ? strict(schema as object)
    : lenient(httpPart === 'headers' ? lowerCaseHeaderNames(schema as HeadersSchema) : schema as object)
}

type Compile = (schema: object) => ValidateFunction

const compilersByShared = new WeakMap<readonly object[], { strict: Compile, lenient: Compile }>()

function compilerOf (lenient: boolean, shared: readonly object[]): Compile {
  const ajv = lenient
    ? new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, discriminator: true, allErrors: false })
    : new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, discriminator: true, allErrors: false })
  addFormats(ajv, [...NUMERIC_FORMATS])
  for (const schema of shared) ajv.addSchema(schema)
  const compiled = new Map<string, ValidateFunction>()
  return (schema) => {
    const text = JSON.stringify(schema)
    let validate = compiled.get(text)
    if (validate === undefined) {
      validate = ajv.compile(schema)
      compiled.set(text, validate)
    }
    return validate
  }
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
