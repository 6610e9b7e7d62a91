import { readFileSync } from 'node:fs'
import createClient from 'openapi-fetch'
import { describe, expect, it } from 'vitest'
import type { paths } from '../../openapi/client/schema.js'
import { buildTestApp } from '../helpers/app.js'
import { INDEX_READY_MS } from '../collections/indexes/helpers.js'
import { eventually } from '../helpers/local-redis.js'

/**
 * The client openapi-typescript generates from openapi/openapi.json, with openapi-fetch, against the
 * service on a real socket: every operation of the description is called at least once.
 */
const adminToken = 'client-test-admin-token-0123456789'
const app = await buildTestApp({ adminToken })
const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
// Access is enforced: every request carries the admin token, but those that check a refusal.
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${adminToken}` } })

const described = Object.entries(JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')).paths as
  Record<string, Record<string, unknown>>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
const called = new Set<string>()
client.use({ onRequest ({ request, schemaPath }) { called.add(`${request.method} ${schemaPath}`) } })

const key = 'user:1'
const etagPattern = /^"\d+"$/

describe('the generated client', () => {
  it('creates, reads and describes a document', async () => {
    const created = await client.PUT('/docs/{key}', { params: { path: { key } }, body: { name: 'Ann', tags: ['a'], age: 30 } })
    expect(created.response.status).toBe(201)
    expect(created.response.headers.get('location')).toBe('/docs/user%3A1')
    expect(created.response.headers.get('etag')).toMatch(etagPattern)
    expect(created.data).toEqual({ name: 'Ann', tags: ['a'], age: 30 })

    const read = await client.GET('/docs/{key}', { params: { path: { key }, query: { pointer: '/tags/0' } } })
    expect(read.data).toBe('a')
    const query = await client.GET('/docs/{key}', { params: { path: { key }, query: { jsonpath: '$.name' } } })
    expect(query.data).toEqual(['Ann'])
    const atPath = await client.GET('/docs/{key}/{pointer}', { params: { path: { key, pointer: 'name' } } })
    expect(atPath.data).toBe('Ann')

    const head = await client.HEAD('/docs/{key}', { params: { path: { key } } })
    expect(head.response.status).toBe(200)
    expect(head.response.headers.get('etag')).toBe(created.response.headers.get('etag'))
    const headAtPath = await client.HEAD('/docs/{key}/{pointer}', { params: { path: { key, pointer: 'nowhere' } } })
    expect(headAtPath.response.status).toBe(404)

    const meta = await client.GET('/meta/{key}', { params: { path: { key }, query: { pointer: '/tags' } } })
    expect(meta.data).toMatchObject({ type: 'array', length: 1 })
    const metaAtPath = await client.GET('/meta/{key}/{pointer}', { params: { path: { key, pointer: 'name' } } })
    expect(metaAtPath.data).toMatchObject({ type: 'string', length: 3 })
    expect((await client.HEAD('/meta/{key}', { params: { path: { key } } })).response.status).toBe(200)
    expect((await client.HEAD('/meta/{key}/{pointer}', { params: { path: { key, pointer: 'age' } } })).response.status).toBe(200)
  })

  it('edits with merge patch, JSON Patch, operations and deletes', async () => {
    const merged = await client.PATCH('/docs/{key}', {
      params: { path: { key } }, body: { age: 31 }, headers: { 'Content-Type': 'application/merge-patch+json' }
    })
    expect(merged.data).toMatchObject({ age: 31 })

    const patched = await client.PATCH('/docs/{key}/{pointer}', {
      params: { path: { key, pointer: 'tags' } },
      body: [{ op: 'add', path: '/-', value: 'b' }],
      headers: { 'Content-Type': 'application/json-patch+json' }
    })
    expect(patched.data).toEqual(['a', 'b'])

    const incremented = await client.POST('/docs/{key}', { params: { path: { key }, query: { pointer: '/age' } }, body: { op: 'incr', by: 1 } })
    expect(incremented.data).toEqual({ result: 32 })
    const pushed = await client.POST('/docs/{key}/{pointer}', { params: { path: { key, pointer: 'tags' } }, body: [{ op: 'push', values: ['c'] }] })
    expect(pushed.data).toEqual({ results: [3] })

    const added = await client.PUT('/docs/{key}/{pointer}', { params: { path: { key, pointer: 'city' } }, body: 'Paris' })
    expect(added.response.status).toBe(201)
    const removed = await client.DELETE('/docs/{key}/{pointer}', { params: { path: { key, pointer: 'city' } } })
    expect(removed.response.status).toBe(204)
    const removedByQuery = await client.DELETE('/docs/{key}', { params: { path: { key }, query: { pointer: '/tags/0' } } })
    expect(removedByQuery.response.status).toBe(204)
    expect((await client.GET('/docs/{key}', { params: { path: { key } } })).data).toEqual({ name: 'Ann', tags: ['b', 'c'], age: 32 })
  })

  it('answers problems with the documented shape', async () => {
    const missing = await client.GET('/docs/{key}', { params: { path: { key: 'nobody' } } })
    expect(missing.response.status).toBe(404)
    expect(missing.response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(missing.error).toMatchObject({ status: 404, code: 'DOCS_ERR_NOT_FOUND', type: '/problems/not-found' })

    const stale = await client.PUT('/docs/{key}', { params: { path: { key }, header: { 'If-Match': '"1"' } }, body: {} })
    expect(stale.error).toMatchObject({ status: 412, code: 'DOCS_ERR_PRECONDITION_FAILED' })
  })

  it('lists, batches and expires', async () => {
    // SCAN pages hold about `limit` keys of a Redis other test files share: follow the cursor to the end.
    const keys: string[] = []
    let cursor: string | undefined
    for (let page = 0; page < 10_000; page++) {
      const listed = await client.GET('/docs', { params: { query: { prefix: 'user:', limit: 1000, ...(cursor ? { cursor } : {}) } } })
      keys.push(...listed.data!.keys)
      if (listed.data!.cursor === null) break
      cursor = listed.data!.cursor
    }
    expect(keys).toEqual([key])
    expect((await client.HEAD('/docs', { params: { query: { prefix: 'user:' } } })).response.status).toBe(200)

    const written = await client.POST('/batch/write', { body: { items: [{ key: 'user:2', value: { name: 'Bo' }, ifNoneMatch: '*' }] } })
    expect(written.data?.items).toEqual([{ key: 'user:2', status: 201, etag: expect.stringMatching(etagPattern) }])
    const read = await client.POST('/batch/read', { body: { keys: [key, 'user:2', 'user:3'], pointer: '/name' } })
    expect(read.data?.items.map((item) => [item.status, item.value])).toEqual([[200, 'Ann'], [200, 'Bo'], [404, undefined]])

    const set = await client.PUT('/ttl/{key}', { params: { path: { key: 'user:2' } }, body: { ttl: 60 } })
    expect(set.data?.ttl).toBeGreaterThan(59)
    const ttl = await client.GET('/ttl/{key}', { params: { path: { key: 'user:2' } } })
    expect(ttl.response.headers.get('expires-in')).toBe('60')
    expect((await client.HEAD('/ttl/{key}', { params: { path: { key: 'user:2' } } })).response.status).toBe(200)
    expect((await client.DELETE('/ttl/{key}', { params: { path: { key: 'user:2' } } })).response.status).toBe(204)
    expect((await client.GET('/ttl/{key}', { params: { path: { key: 'user:2' } } })).data).toEqual({ ttl: null })
  })

  it('answers OPTIONS, the probes, the metrics and its own description', async () => {
    const options = await client.OPTIONS('/docs/{key}', { params: { path: { key } } })
    expect(options.response.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, POST, DELETE')
    expect((await client.OPTIONS('/docs/{key}/{pointer}', { params: { path: { key, pointer: 'name' } } })).response.status).toBe(204)

    for (const probe of ['/health', '/livez', '/readyz'] as const) {
      expect((await client.GET(probe)).data).toEqual({ status: 'ok' })
      expect((await client.HEAD(probe)).response.status).toBe(200)
    }
    const metrics = await client.GET('/metrics', { parseAs: 'text' })
    expect(metrics.data).toMatch(/^jsondocs_http_request_duration_seconds_count\{/m)
    expect((await client.HEAD('/metrics')).response.status).toBe(200)
    const refused = await client.GET('/metrics', { headers: { Authorization: null }, parseAs: 'text' })
    expect(refused.response.status).toBe(401)

    const json = await client.GET('/openapi.json')
    expect(json.data).toMatchObject({ openapi: '3.1.0' })
    const yaml = await client.GET('/openapi.yaml', { parseAs: 'text' })
    expect(yaml.data).toMatch(/^openapi: 3\.1\.0$/m)
    expect((await client.HEAD('/openapi.json')).response.status).toBe(200)
    expect((await client.HEAD('/openapi.yaml')).response.status).toBe(200)
  })

  it('registers, reads, lists and removes collection schemas, which then validate writes', async () => {
    const schema = { type: 'object', properties: { total: { type: 'integer', minimum: 0 } }, required: ['total'] }
    const collection = 'orders'
    const registered = await client.PUT('/schemas/{collection}', {
      params: { path: { collection } }, body: schema, headers: { 'Content-Type': 'application/schema+json' }
    })
    expect(registered.response.status).toBe(201)
    expect(registered.data).toMatchObject({ collection, existingDocuments: { checked: 0, violating: 0, complete: true } })
    const etag = registered.response.headers.get('etag')!
    expect(etag).toMatch(etagPattern)

    const read = await client.GET('/schemas/{collection}', { params: { path: { collection } }, parseAs: 'json' })
    expect(read.data).toEqual(schema)
    expect((await client.HEAD('/schemas/{collection}', { params: { path: { collection } } })).response.headers.get('etag')).toBe(etag)
    expect((await client.GET('/schemas')).data).toEqual({ collections: [{ collection, etag }] })
    expect((await client.HEAD('/schemas')).response.status).toBe(200)

    const rejected = await client.PUT('/docs/{key}', { params: { path: { key: 'orders:1' } }, body: { total: -1 } })
    expect(rejected.response.status).toBe(422)
    expect(rejected.error).toMatchObject({
      code: 'DOCS_ERR_SCHEMA_VIOLATION', collection, errors: [{ in: 'document', pointer: '/total', keyword: 'minimum' }]
    })

    const removed = await client.DELETE('/schemas/{collection}', { params: { path: { collection }, header: { 'If-Match': etag } } })
    expect(removed.response.status).toBe(204)
    expect((await client.PUT('/docs/{key}', { params: { path: { key: 'orders:1' } }, body: { total: -1 } })).response.status).toBe(201)
  })

  it('creates, lists and revokes tokens', async () => {
    const created = await client.POST('/tokens', { body: { scopes: [{ prefix: 'user:1', rights: ['read'] }], ttl: 60, label: 'reader' } })
    expect(created.response.status).toBe(201)
    const { id, token } = created.data!
    const listed = await client.GET('/tokens')
    expect(listed.data!.tokens).toEqual([expect.objectContaining({ id, label: 'reader', scopes: [{ prefix: 'user:1', rights: ['read'] }] })])
    expect(JSON.stringify(listed.data)).not.toContain(token)
    expect((await client.HEAD('/tokens')).response.status).toBe(200)

    expect((await client.DELETE('/tokens/{id}', { params: { path: { id } } })).response.status).toBe(204)
  })

  it('declares an index, queries a collection and removes the index', async () => {
    const collection = 'products'
    for (const [id, price] of [[1, 9.5], [2, 12], [3, 4]] as const) {
      await client.PUT('/docs/{key}', { params: { path: { key: `products:${id}` } }, body: { price, tags: ['sale'] } })
    }
    const fields = [{ pointer: '/price', type: 'number' as const, sortable: true }, { pointer: '/tags', type: 'tag' as const }]
    const declared = await client.PUT('/collections/{collection}/index', { params: { path: { collection } }, body: { fields } })
    expect([200, 202]).toContain(declared.response.status)
    await eventually(async () => (await client.GET('/collections/{collection}/index', { params: { path: { collection } } })).data?.state === 'ready', INDEX_READY_MS)
    expect((await client.HEAD('/collections/{collection}/index', { params: { path: { collection } } })).response.status).toBe(200)
    const found = await client.POST('/collections/{collection}/query', {
      params: { path: { collection }, header: { Prefer: 'count=exact' } },
      body: { filter: { '/tags': 'sale', '/price': { $lt: 10 } }, sort: [{ pointer: '/price', order: 'desc' }], fields: ['/price'], limit: 20 }
    })
    expect(found.data).toMatchObject({ items: [{ key: 'products:1', value: { '/price': 9.5 } }, { key: 'products:3', value: { '/price': 4 } }], cursor: null, count: 2 })
    // The description's `conditions` is an object parameter in the style OpenAPI gives query parameters by default: form, exploded.
    const short = {
      params: { path: { collection }, header: { Prefer: 'count=exact' }, query: { conditions: { '/tags': 'sale', '/price': 'lt:10' }, sort: '-/price', fields: '/price', limit: 20 } },
      querySerializer: { object: { style: 'form', explode: true } }
    } as const
    expect((await client.GET('/collections/{collection}/query', short)).data).toEqual(found.data)
    expect((await client.HEAD('/collections/{collection}/query', short)).response.status).toBe(200)
    const grouped = await client.POST('/collections/{collection}/aggregate', {
      params: { path: { collection } },
      body: { groupBy: ['/tags'], metrics: { n: { $count: {} }, total: { $sum: '/price' }, lo: { $min: '/price' } }, sort: [{ metric: 'n', order: 'desc' }], limit: 10 }
    })
    expect(grouped.data).toEqual({ groups: [{ key: { '/tags': 'sale' }, n: 3, total: 25.5, lo: 4 }], truncated: false })
    const shortGrouped = {
      params: { path: { collection }, query: { groupBy: '/tags', metrics: 'n:count,total:sum:/price,lo:min:/price', sort: '-n', limit: 10 } }
    } as const
    expect((await client.GET('/collections/{collection}/aggregate', shortGrouped)).data).toEqual(grouped.data)
    expect((await client.HEAD('/collections/{collection}/aggregate', shortGrouped)).response.status).toBe(200)
    expect((await client.DELETE('/collections/{collection}/index', { params: { path: { collection } } })).response.status).toBe(204)
  })

  it('makes a stream ticket', async () => {
    const made = await client.POST('/streams/tickets', { body: { key: 'user:1' } })
    expect(made.response.status).toBe(201)
    expect(made.data!.ticket).toMatch(/^jst\./)
  })

  it('has called every operation of the description', () => {
    expect(described.length).toBeGreaterThan(30)
    expect(described.filter((operation) => !called.has(operation))).toEqual([])
  })
})
