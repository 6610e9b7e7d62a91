import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderOpenapiArtifacts } from '../../scripts/openapi.js'
import { MAX_QUERY_STRING_CHARACTERS } from '../../src/collections/indexes/route-schemas.js'
import { problemTypePath, problemTypes } from '../../src/errors.js'
import { buildTestApp, get, send } from '../helpers/app.js'

// As `npm run openapi` builds it: with an admin token, so that GET /metrics is served and described.
const app = await buildTestApp()
const document = app.swagger() as unknown as {
  openapi: string
  paths: Record<string, Record<string, { operationId: string, responses: Record<string, { content?: Record<string, { examples?: object }> }> }>>
  components: { schemas: Record<string, { properties: Record<string, { enum?: unknown[] }> }> }
}
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method, ...operation })))

describe('the committed description', () => {
  it('is what the routes generate (run `npm run openapi` after changing a route)', async () => {
    for (const [path, text] of Object.entries(await renderOpenapiArtifacts(app))) {
      expect(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'), path).toBe(text)
    }
  })
})

describe('the generated description', () => {
  it('bounds a short form\'s parameters so that, each at its bound with a condition on an index field\'s pointer, they fit the 414 bound', () => {
    type Parameter = { name: string, in: string, schema: { maxLength?: number, maximum?: number, additionalProperties?: { maxLength?: number } } }
    // A condition is named by an index field's pointer.
    const MAX_INDEX_POINTER = (document.components.schemas.IndexField!.properties.pointer as { maxLength?: number }).maxLength!
    for (const operationId of ['getCollectionQuery', 'getCollectionAggregate']) {
      const { parameters } = operations.find((operation) => operation.operationId === operationId) as unknown as { parameters: Parameter[] }
      let characters = 0
      for (const { name, schema } of parameters.filter((parameter) => parameter.in === 'query')) {
        if (name === 'conditions') characters += MAX_INDEX_POINTER + schema.additionalProperties!.maxLength!
        else characters += name.length + (schema.maxLength ?? String(schema.maximum).length)
      }
      expect(characters, operationId).toBeLessThanOrEqual(MAX_QUERY_STRING_CHARACTERS)
    }
  })

  it('is OpenAPI 3.1 with path templates, not router patterns', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.paths)).toContain('/docs/{key}/{pointer}')
    for (const path of Object.keys(document.paths)) expect(path).not.toMatch(/[*:]/)
  })

  it('names every operation once, with an identifier any language takes', () => {
    const ids = operations.map((operation) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/)
  })

  it('lists every problem type of the registry, with an example under its status', () => {
    const codes = Object.keys(problemTypes) as Array<keyof typeof problemTypes>
    const problem = document.components.schemas.Problem!
    expect(problem.properties.code!.enum).toEqual(codes)
    expect(problem.properties.type!.enum).toEqual(codes.map(problemTypePath))
    const examples = new Set(operations.flatMap((operation) => Object.values(operation.responses)
      .flatMap((response) => Object.keys(response.content?.['application/problem+json']?.examples ?? {}))))
    expect(codes.filter((code) => code !== 'DOCS_ERR_INTERNAL' && code !== 'DOCS_ERR_ROUTE_NOT_FOUND' &&
      code !== 'DOCS_ERR_METHOD_NOT_ALLOWED' && !examples.has(code))).toEqual([])
  })

  it('documents 503 with Retry-After on the routes that reach Redis', () => {
    const put = document.paths['/docs/{key}']!.put!.responses['503'] as { headers?: Record<string, unknown> }
    expect(Object.keys(put.headers ?? {})).toEqual(['Retry-After'])
  })
})

type Schema = { [keyword: string]: unknown }
type Operation = { parameters?: Array<{ name: string, in: string, schema: Schema }>, requestBody?: { content: Record<string, { schema: Schema }> } }

/** Every schema object in a part of the description, with where it is. */
function schemasIn (node: unknown, at: string, found: Array<[string, Schema]> = []): Array<[string, Schema]> {
  if (Array.isArray(node)) node.forEach((item, index) => schemasIn(item, `${at}/${index}`, found))
  else if (node !== null && typeof node === 'object') {
    const object = node as Schema
    if ('type' in object || 'const' in object || 'properties' in object || 'oneOf' in object) found.push([at, object])
    for (const [key, value] of Object.entries(object)) if (key !== 'examples' && key !== 'example') schemasIn(value, `${at}/${key}`, found)
  }
  return found
}

const components = (document.components.schemas as unknown as Record<string, Schema>)
const allOperations = operations as unknown as Array<Operation & { operationId: string }>

describe('for generated clients', () => {
  it('puts every structured request body in a named component, never inline', () => {
    for (const operation of allOperations) {
      for (const [mediaType, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
        // A document body is any JSON value: no structure to name.
        if (Object.keys(schema).every((keyword) => keyword === 'description')) continue
        expect(schema.$ref, `${operation.operationId} ${mediaType}`).toMatch(/^#\/components\/schemas\/[A-Z]\w+$/)
      }
    }
  })

  it('gives every schema with members, items or a constant its type, and every number a width', () => {
    const described = [...schemasIn(document.paths, '#/paths'), ...schemasIn(components, '#/components/schemas')]
    for (const [at, schema] of described) {
      if ('properties' in schema || 'const' in schema) expect(schema.type, at).toBeDefined()
      if ('items' in schema) expect(schema.type, at).toBe('array')
      const types = [schema.type].flat()
      if (types.includes('number')) expect(schema.format, at).toBe('double')
    }
  })

  it('names each array item and union branch that has members', () => {
    for (const [at, schema] of schemasIn(components, '#/components/schemas')) {
      const items = schema.items as Schema | undefined
      if (items && 'properties' in items) throw new Error(`${at}: items with members and no name`)
      for (const branch of (schema.oneOf ?? []) as Schema[]) expect(branch.properties, `${at}: oneOf`).toBeUndefined()
    }
  })

  it('says what the service checks of a collection name: no control character and no separator', () => {
    const parameter = allOperations.find((operation) => operation.operationId === 'putSchema')!.parameters!
      .find((candidate) => candidate.name === 'collection')!
    const pattern = new RegExp(parameter.schema.pattern as string, 'u')
    expect(['users', 'a b', 'é/x'].filter((name) => !pattern.test(name))).toEqual([])
    expect(['a:b', 'a\u0001b', 'a\u0085b'].filter((name) => pattern.test(name))).toEqual([])
    expect(parameter.schema).toMatchObject({ minLength: 1, maxLength: 1024 })
  })

  it('follows a separator of several characters, with characters a pattern must escape', async () => {
    const dotted = await buildTestApp({ collectionSeparator: '.*' })
    const put = (collection: string) => send(dotted, 'PUT', `/schemas/${collection}`, '{}', {}, 'application/schema+json')
    expect((await put('a.*b')).statusCode).toBe(400)
    expect((await put('a.b')).statusCode).toBe(201)
    const described = dotted.swagger() as unknown as { paths: Record<string, Record<string, Operation>> }
    const parameter = described.paths['/schemas/{collection}']!.put!.parameters!.find((candidate) => candidate.name === 'collection')!
    expect(new RegExp(parameter.schema.pattern as string, 'u').test('a.*b')).toBe(false)
  })
})

describe('served by the service', () => {
  it('answers /openapi.json and /openapi.yaml from the same generated object', async () => {
    const json = await get(app, '/openapi.json')
    expect(json.headers['content-type']).toMatch(/^application\/json/)
    expect(json.json()).toEqual(JSON.parse(JSON.stringify(document)))
    const yaml = await get(app, '/openapi.yaml')
    expect(yaml.headers['content-type']).toMatch(/^application\/yaml/)
    expect(yaml.body).toBe(app.swagger({ yaml: true }))
  })

  it('serves the reference page and its assets itself', async () => {
    const page = await get(app, '/reference/')
    expect(page.statusCode).toBe(200)
    expect(page.body).not.toMatch(/<(script|link)[^>]+(src|href)="(https?:)?\/\//i)
    const bundle = await get(app, '/reference/static/swagger-ui-bundle.js')
    expect(bundle.statusCode).toBe(200)
    expect(bundle.headers['content-type']).toMatch(/javascript/)
  })
})
