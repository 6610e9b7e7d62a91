import fastJsonStringify from 'fast-json-stringify'
import { describe, expect, it } from 'vitest'
import { referencedSchemasSerializer } from '../../src/http/serializers.js'

type Schema = fastJsonStringify.Schema

/** Shared schemas as fastify hands them to a serializer factory: by `$id`. */
const shared: Record<string, Schema> = {
  Tag: { $id: 'Tag', type: 'object', properties: { name: { type: 'string' } } },
  Item: { $id: 'Item', type: 'object', properties: { id: { type: 'integer' }, tags: { type: 'array', items: { $ref: 'Tag#' } } } },
  Page: { $id: 'Page', type: 'object', properties: { items: { type: 'array', items: { $ref: 'Item#' } }, next: { type: 'string' } } },
  Nested: {
    $id: 'Nested', type: 'object',
    properties: { inner: { $id: 'Inner', type: 'object', properties: { kept: { type: 'boolean' } } } }
  }
}

/** What fastify's own factory builds: every shared schema given to every response schema. */
function everyShared (schema: Schema) {
  return fastJsonStringify(schema, { schema: shared })
}

function compile (schema: Schema) {
  return referencedSchemasSerializer(shared, {})({ schema, method: 'GET', url: '/', httpStatus: '200' })
}

const page = {
  items: [{ id: 1, tags: [{ name: 'a', dropped: true }], extra: 'dropped' }, { id: '2', tags: [] }],
  next: 'n', other: 1
}

describe('the response serializers', () => {
  it('follow refs through the shared schemas, transitively, and write what fastify\'s own factory writes', () => {
    const schema: Schema = { type: 'object', properties: { page: { $ref: 'Page#' }, count: { type: 'integer' } } }
    const answer = { page, count: '3', ignored: 'x' }
    expect(compile(schema)(answer)).toBe(everyShared(schema)(answer))
    expect(JSON.parse(compile(schema)(answer))).toEqual({
      page: { items: [{ id: 1, tags: [{ name: 'a' }] }, { id: 2, tags: [] }], next: 'n' }, count: 3
    })
  })

  it('take a ref into a shared schema\'s members, and one to a shared schema itself', () => {
    const member: Schema = { $ref: 'Page#/properties/items' }
    expect(compile(member)(page.items)).toBe(everyShared(member)(page.items))
    const whole: Schema = { $id: 'Page', type: 'object', properties: { items: { type: 'array', items: { $ref: 'Item#' } }, next: { type: 'string' } } }
    expect(compile(whole)(page)).toBe('{"items":[{"id":1,"tags":[{"name":"a"}]},{"id":2,"tags":[]}],"next":"n"}')
  })

  it('are given every shared schema when a ref names an $id nested in one', () => {
    const schema: Schema = { type: 'object', properties: { inner: { $ref: 'Inner#' } } }
    expect(compile(schema)({ inner: { kept: true, not: 1 } })).toBe('{"inner":{"kept":true}}')
  })

  it('compile each distinct response schema once per factory, however many routes and statuses give it', () => {
    const factory = referencedSchemasSerializer(shared, {})
    const route = (schema: Schema, url: string) => factory({ schema, method: 'GET', url, httpStatus: '404' })
    const problem = () => ({ type: 'object', properties: { title: { type: 'string' }, tag: { $ref: 'Tag#' } } }) as Schema
    const first = route(problem(), '/a')
    expect(route(problem(), '/b')).toBe(first)
    expect(route({ type: 'object', properties: { title: { type: 'integer' } } }, '/a')).not.toBe(first)
    expect(referencedSchemasSerializer(shared, {})({ schema: problem(), method: 'GET', url: '/a', httpStatus: '404' })).not.toBe(first)
  })

  it('check only the shared schemas the response references (checking them all, for each response, was the cost)', () => {
    const withBad = { ...shared, Bad: { $id: 'Bad', type: 'object', properties: { y: { type: 'nonsense' } } } as unknown as Schema }
    const build = (schema: Schema) => referencedSchemasSerializer(withBad, {})({ schema, method: 'GET', url: '/', httpStatus: '200' })
    expect(build({ type: 'object', properties: { tag: { $ref: 'Tag#' } } })({ tag: { name: 'a' } })).toBe('{"tag":{"name":"a"}}')
    expect(() => build({ type: 'object', properties: { bad: { $ref: 'Bad#' } } })).toThrow(/"Bad" schema is invalid/)
  })
})
