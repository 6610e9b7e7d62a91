import fastJsonStringify from 'fast-json-stringify'
import type { FastifyServerOptions } from 'fastify'

type Schema = fastJsonStringify.Schema
type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>

/** The `$id`s named by the `$ref`s anywhere in schema (the part before `#`; none for a ref inside it). */
function refsOf (schema: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) refsOf(item, into)
  } else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') {
        const id = value.slice(0, value.indexOf('#') < 0 ? value.length : value.indexOf('#'))
        if (id !== '') into.add(id)
      } else {
        refsOf(value, into)
      }
    }
  }
  return into
}

/**
 * The shared schemas a schema needs: those its `$ref`s name, and theirs, transitively; every shared schema
 * when a ref names something that is not one of them by its `$id` (fast-json-stringify then resolves it).
 */
function neededBy (schema: Schema, shared: Record<string, Schema>): Record<string, Schema> {
  const needed: Record<string, Schema> = {}
  const pending = [...refsOf(schema, new Set())]
  while (pending.length > 0) {
    const id = pending.pop()!
    if (id in needed) continue
    const found = shared[id]
    if (found === undefined) return shared
    needed[id] = found
    pending.push(...refsOf(found, new Set()))
  }
  return needed
}

/**
 * fastify's serializer factory (fast-json-stringify), given for each response schema only the shared
 * schemas it references, and compiling each distinct response schema once. fast-json-stringify checks and
 * indexes every shared schema it is given, for each response schema it compiles; and the routes' 600-odd
 * responses are some 30 schemas (the problems above all): building the app took seconds.
 */
export const referencedSchemasSerializer: SerializerFactory = (shared, options) => {
  const compiled = new Map<string, (document: unknown) => string>()
  return ({ schema }) => {
    const text = JSON.stringify(schema)
    let serializer = compiled.get(text)
    if (serializer === undefined) {
      const needed = { ...neededBy(schema as Schema, shared as Record<string, Schema>) }
      // As fastify's own factory does: a response schema that is itself shared is not given twice.
      const { $id } = schema as { $id?: unknown }
      if (typeof $id === 'string') delete needed[$id]
      serializer = fastJsonStringify(schema as Schema, { ...options, schema: needed })
      compiled.set(text, serializer)
    }
    return serializer
  }
}
