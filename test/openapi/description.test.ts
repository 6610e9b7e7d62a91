import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderOpenapiArtifacts } from '../../scripts/openapi.js'
import { problemTypePath, problemTypes } from '../../src/errors.js'
import { buildTestApp, get } from '../helpers/app.js'

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
