/** Route schemas of `/schemas`: the service's own inputs, never the documents. */

export const collectionParamsSchema = {
  type: 'object',
  properties: { collection: { type: 'string', minLength: 1, maxLength: 1024 } },
  required: ['collection']
} as const

/** A JSON Schema is an object or a boolean; whether it is a valid 2020-12 schema is checked on compiling. */
export const schemaBodySchema = { anyOf: [{ type: 'object' }, { type: 'boolean' }] } as const
