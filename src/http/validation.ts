import { Ajv } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Route schema compilation with two ajv instances. Bodies are validated strictly: no coercion, no
 * defaults, nothing removed, so `"1"` is never taken for 1. Query strings, params and headers arrive as
 * text, so there types are coerced and defaults applied. Both know the `shared` schemas that routes
 * reference by `$id`.
 */
export function createValidatorCompiler (shared: readonly object[] = []): FastifySchemaCompiler<unknown> {
  const strict = new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, discriminator: true, allErrors: false })
  const lenient = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, discriminator: true, allErrors: false })
  for (const schema of shared) {
    strict.addSchema(schema)
    lenient.addSchema(schema)
  }
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : lenient).compile(schema as object)
}
