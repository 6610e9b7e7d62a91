/**
 * ajv takes a `discriminator` only without `mapping`, while OpenAPI's implicit mapping expects each
 * discriminator value to be a component's name. The description therefore gets the explicit mapping,
 * derived from the `const` each referenced component gives the discriminating property.
 */

type Schema = { [keyword: string]: unknown }
export type OpenApiDocument = { components?: { schemas?: Record<string, Schema> }, [member: string]: unknown }

const COMPONENTS = '#/components/schemas/'

export function mapDiscriminators<D extends OpenApiDocument> (document: D): D {
  const components = document.components?.schemas ?? {}
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== 'object') return
    const schema = node as Schema
    const discriminator = schema.discriminator as { propertyName: string, mapping?: Record<string, string> } | undefined
    if (discriminator && !discriminator.mapping && Array.isArray(schema.oneOf)) {
      const mapping: Record<string, string> = {}
      for (const branch of schema.oneOf as Schema[]) {
        const ref = typeof branch.$ref === 'string' && branch.$ref.startsWith(COMPONENTS) ? branch.$ref : undefined
        const target = ref === undefined ? undefined : components[ref.slice(COMPONENTS.length)]
        const value = (target?.properties as Record<string, Schema> | undefined)?.[discriminator.propertyName]?.const
        if (typeof value === 'string') mapping[value] = ref!
      }
      if (Object.keys(mapping).length === (schema.oneOf as unknown[]).length) discriminator.mapping = mapping
    }
    Object.values(schema).forEach(visit)
  }
  visit(document)
  return document
}
