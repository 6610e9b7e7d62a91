import { describe, expect, it } from 'vitest'
import { buildTestApp, get, put, remove, send, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()

const personSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name']
}

function register (collection: string, schema: unknown, headers: Record<string, string> = {}) {
  return send(app, 'PUT', `/schemas/${collection}`, JSON.stringify(schema), headers, 'application/schema+json')
}

describe('registering a schema', () => {
  it('creates it with 201, an ETag and a Location, and serves it back as sent', async () => {
    const collection = uniqueKey('people')
    const text = '{ "type": "object",\n  "required": ["name"] }'
    const created = await send(app, 'PUT', `/schemas/${collection}`, text, {}, 'application/schema+json')
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe(`/schemas/${collection}`)
    expect(created.headers.etag).toMatch(/^"\d+"$/)
    expect(created.json()).toMatchObject({ collection, etag: created.headers.etag })

    const read = await get(app, `/schemas/${collection}`)
    expect(read.statusCode).toBe(200)
    expect(read.headers['content-type']).toMatch(/^application\/schema\+json/)
    expect(read.headers.etag).toBe(created.headers.etag)
    expect(read.body).toBe(text)
    expect((await get(app, `/schemas/${collection}`, { 'if-none-match': created.headers.etag as string })).statusCode).toBe(304)
  })

  it('replaces it with 200 and a new ETag, honouring If-Match', async () => {
    const collection = uniqueKey('people')
    const first = await register(collection, personSchema)
    const stale = await register(collection, true, { 'if-match': '"1"' })
    expect(stale.statusCode).toBe(412)
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/)
    const replaced = await register(collection, { type: 'object' }, { 'if-match': first.headers.etag as string })
    expect(replaced.statusCode).toBe(200)
    expect(replaced.headers.etag).not.toBe(first.headers.etag)
    expect((await get(app, `/schemas/${collection}`)).json()).toEqual({ type: 'object' })
    expect((await register(collection, true, { 'if-none-match': '*' })).statusCode).toBe(412)
  })

  it('accepts application/json and boolean schemas', async () => {
    const collection = uniqueKey('anything')
    expect((await put(app, `/schemas/${collection}`, true)).statusCode).toBe(201)
    expect((await get(app, `/schemas/${collection}`)).body).toBe('true')
  })

  it('lists the collections that have schemas, with their ETags', async () => {
    const own = await buildTestApp()
    const a = await send(own, 'PUT', '/schemas/alpha', '{}', {}, 'application/schema+json')
    await send(own, 'PUT', '/schemas/beta', 'true', {}, 'application/schema+json')
    const listing = await get(own, '/schemas')
    expect(listing.statusCode).toBe(200)
    expect(listing.json().collections).toEqual([
      { collection: 'alpha', etag: a.headers.etag },
      { collection: 'beta', etag: expect.stringMatching(/^"\d+"$/) }
    ])
  })

  it('removes it with 204, then answers 404', async () => {
    const collection = uniqueKey('gone')
    const created = await register(collection, personSchema)
    expect((await remove(app, `/schemas/${collection}`, { 'if-match': '"1"' })).statusCode).toBe(412)
    expect((await remove(app, `/schemas/${collection}`, { 'if-match': created.headers.etag as string })).statusCode).toBe(204)
    expect((await get(app, `/schemas/${collection}`)).statusCode).toBe(404)
    expect((await remove(app, `/schemas/${collection}`)).statusCode).toBe(404)
    expect((await get(app, '/schemas')).json().collections).not.toContainEqual(expect.objectContaining({ collection }))
  })
})

describe('an unusable schema', () => {
  it.each([
    ['a keyword of the wrong type', { type: 12 }],
    ['a negative minLength', { minLength: -1 }],
    ['required that is not an array', { required: 'name' }]
  ])('is 400 with the meta-schema errors as pointers into the schema: %s', async (_label, schema) => {
    const collection = uniqueKey('bad')
    const response = await register(collection, schema)
    expect(response.statusCode).toBe(400)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
    const problem = response.json()
    expect(problem).toMatchObject({ code: 'DOCS_ERR_INVALID_SCHEMA', status: 400, type: '/problems/invalid-schema' })
    expect(problem.errors.length).toBeGreaterThan(0)
    expect(problem.errors[0]).toMatchObject({ pointer: expect.stringMatching(/^\//), detail: expect.any(String) })
    expect((await get(app, `/schemas/${collection}`)).statusCode).toBe(404)
  })

  it.each([
    ['another draft', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }],
    ['an unresolvable $ref', { $ref: 'https://example.com/elsewhere.json' }],
    ['an invalid regular expression', { type: 'string', pattern: '(' }],
    ['an asynchronous schema', { $async: true, type: 'object' }],
    ['a $ref to itself', { $ref: '#' }],
    ['a $ref cycle through $defs', { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }],
    ['a $ref cycle on objects only', { if: { type: 'object' }, then: { $ref: '#' } }]
  ])('is 400 and not stored: %s', async (_label, schema) => {
    const collection = uniqueKey('bad')
    const response = await register(collection, schema)
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('DOCS_ERR_INVALID_SCHEMA')
    expect((await get(app, `/schemas/${collection}`)).statusCode).toBe(404)
  })

  it('refuses a write it would recurse on without end with 400, and writes nothing', async () => {
    const collection = uniqueKey('cycle')
    // Only a document with "x" reaches the cycle: registration cannot see it coming.
    expect((await register(collection, { if: { type: 'object', required: ['x'] }, then: { $ref: '#' } })).statusCode).toBe(201)
    const response = await put(app, `/docs/${collection}:1`, { x: 1 })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_INVALID_SCHEMA', detail: expect.stringMatching(/refers to itself without end/) })
    expect((await get(app, `/docs/${collection}:1`)).statusCode).toBe(404)
    expect((await put(app, `/docs/${collection}:1`, { y: 1 })).statusCode).toBe(201)
  })

  it('is 400 when the body is not an object or boolean, and replaces nothing', async () => {
    const collection = uniqueKey('kept')
    await register(collection, personSchema)
    for (const body of ['[1]', '"text"', '3', 'null']) {
      const response = await send(app, 'PUT', `/schemas/${collection}`, body, {}, 'application/schema+json')
      expect(response.statusCode).toBe(400)
      expect(response.json().code).toBe('DOCS_ERR_VALIDATION')
    }
    expect((await get(app, `/schemas/${collection}`)).json()).toEqual(personSchema)
  })

  it('is 415 in another media type', async () => {
    const response = await send(app, 'PUT', `/schemas/${uniqueKey('c')}`, '{}', {}, 'text/plain')
    expect(response.statusCode).toBe(415)
  })
})

describe('collection names', () => {
  it('cannot contain the separator or control characters', async () => {
    expect((await register('a:b', true)).statusCode).toBe(400)
    expect((await register('a%01b', true)).statusCode).toBe(400)
    expect((await get(app, '/schemas/a:b')).statusCode).toBe(400)
  })

  it('follow the configured separator', async () => {
    const slashed = await buildTestApp({ collectionSeparator: '/' })
    expect((await send(slashed, 'PUT', '/schemas/a:b', '{"type":"object"}', {}, 'application/schema+json')).statusCode).toBe(201)
    expect((await put(slashed, '/docs/a:b%2F1', [])).statusCode).toBe(422)
    expect((await put(slashed, '/docs/a:b:1', [])).statusCode).toBe(201)
  })
})

describe('the documents already in a collection', () => {
  it('are kept, and reported: how many were checked, how many the new schema rejects, and why', async () => {
    const collection = uniqueKey('existing')
    await put(app, `/docs/${collection}:1`, { name: 'Ada', age: 36 })
    await put(app, `/docs/${collection}:2`, { age: -1 })
    await put(app, `/docs/${collection}:3`, { name: 'Alan', age: 'forty' })
    await put(app, `/docs/${collection}x:4`, { unrelated: true })
    const response = await register(collection, personSchema)
    expect(response.statusCode).toBe(201)
    const report = response.json().existingDocuments
    expect(report).toMatchObject({ checked: 3, violating: 2, complete: true })
    const examples = Object.fromEntries(report.examples.map((example: { key: string, errors: unknown[] }) =>
      [example.key, example.errors]))
    expect(Object.keys(examples).sort()).toEqual([`${collection}:2`, `${collection}:3`])
    expect(examples[`${collection}:2`]).toEqual(expect.arrayContaining([
      expect.objectContaining({ pointer: '', keyword: 'required' }),
      expect.objectContaining({ pointer: '/age', keyword: 'minimum' })
    ]))
    expect((await get(app, `/docs/${collection}:2`)).json()).toEqual({ age: -1 })
  })
})
