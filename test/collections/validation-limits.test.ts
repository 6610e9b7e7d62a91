import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import type { ValidationSettings } from '../../src/collections/validation-pool.js'
import { buildTestApp, get, patch, put, send, uniqueKey } from '../helpers/app.js'
import { eventually } from '../helpers/local-redis.js'

/**
 * MAX_VALIDATION_MS scaled down from its default of 1000 ms: the slow validations below take days, and every
 * one of them waits out the deadline (four in a row in one test).
 */
const MAX_MS = 300

const settings = (overrides: Partial<ValidationSettings> = {}): ValidationSettings =>
  ({ maxMs: MAX_MS, workers: 1, memoryMb: 256, ...overrides })

const app = await buildTestApp({ validation: settings() })

/**
 * `$defs` d0..d{depth}, each an `allOf` of two `$ref`s to the next: a few hundred bytes whose validation
 * doubles with each level (d0..d24 took 489 ms for one number; 40 levels would take days).
 */
function fanOut (depth: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`d${depth}`]: { type: 'number' } }
  for (let level = 0; level < depth; level++) {
    defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }] }
  }
  return defs
}

/** A schema whose member `n` is the fan-out, and `name` an ordinary string: only documents with `n` are slow. */
const bombSchema = {
  type: 'object',
  $defs: fanOut(40),
  properties: { n: { $ref: '#/$defs/d0' }, name: { type: 'string' } },
  required: ['name']
}

function register (service: FastifyInstance, collection: string, schema: unknown) {
  return send(service, 'PUT', `/schemas/${collection}`, JSON.stringify(schema), {}, 'application/schema+json')
}

async function collectionWith (service: FastifyInstance, schema: unknown): Promise<string> {
  const collection = uniqueKey('limits')
  await workerReady(service)
  expect((await register(service, collection, schema)).statusCode).toBe(201)
  return collection
}

type Response = Awaited<ReturnType<typeof get>>

/**
 * Waits until a worker is ready: one replaced after a deadline takes a moment to start (much longer on a
 * loaded machine), and a request that waits MAX_VALIDATION_MS for it is 503, which is not what these tests test.
 */
async function workerReady (service: FastifyInstance) {
  await eventually(async () => service.schemas.validation.activity().idle > 0, 15_000)
}

/**
 * Starts a slow request and, once a validation worker is running its job, reads another document: the
 * read is answered while the job still runs (the event loop is free), before the slow request is.
 */
async function readWhileValidating (service: FastifyInstance, slow: () => Promise<Response>): Promise<Response> {
  const other = `/docs/${uniqueKey('other')}`
  expect((await put(service, other, { small: true })).statusCode).toBe(201)
  await workerReady(service)
  let settled = false
  const pending = slow().finally(() => { settled = true })
  await eventually(async () => service.schemas.validation.activity().running > 0, 5000)
  const read = await get(service, other)
  expect(read.statusCode).toBe(200)
  expect(read.json()).toEqual({ small: true })
  expect(service.schemas.validation.activity().running).toBe(1)
  expect(settled).toBe(false)
  return pending
}

function expectOverLimit (response: Response, limit = 'MAX_VALIDATION_MS', max = MAX_MS) {
  expect(response.statusCode).toBe(422)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit, max })
}

/** A write the schema rejects is still 422 with its violations, and a valid one is written: validation goes on. */
async function expectValidating (service: FastifyInstance, collection: string) {
  await workerReady(service)
  const refused = await put(service, `/docs/${collection}:check`, { name: 7 })
  expect(refused.statusCode).toBe(422)
  expect(refused.json()).toMatchObject({ code: 'DOCS_ERR_SCHEMA_VIOLATION', collection })
  expect(refused.json().errors).toEqual([expect.objectContaining({ pointer: '/name', keyword: 'type', schemaPath: '#/properties/name/type' })])
  expect((await put(service, `/docs/${collection}:check`, { name: 'ok' })).statusCode).toBeLessThan(300)
}

describe('a validation that passes MAX_VALIDATION_MS', () => {
  it('is 422 naming the setting, while other requests are answered meanwhile; the worker is replaced', async () => {
    const collection = await collectionWith(app, bombSchema)
    const response = await readWhileValidating(app, () => put(app, `/docs/${collection}:1`, { name: 'x', n: 1 }))
    expectOverLimit(response)
    expect(response.json().detail).toMatch(/nothing was written/)
    expect((await get(app, `/docs/${collection}:1`)).statusCode).toBe(404)
    await expectValidating(app, collection)
  })

  it('leaves the document byte-identical, whatever the write: merge patch, member PUT, whole PUT, batch', async () => {
    const collection = await collectionWith(app, bombSchema)
    const url = `/docs/${collection}:1`
    expect((await put(app, url, { name: 'kept', list: [1, 2] })).statusCode).toBe(201)
    const before = await get(app, url)
    const writes = [
      () => patch(app, url, { n: 1 }),
      () => put(app, `${url}/n`, 2),
      () => put(app, url, { name: 'replaced', n: 3 }),
      () => send(app, 'POST', '/batch/write', JSON.stringify({
        items: [{ key: `${collection}:2`, value: { name: 'fine' } }, { key: `${collection}:1`, value: { name: 'x', n: 4 } }]
      }))
    ]
    for (const write of writes) {
      await workerReady(app)
      expectOverLimit(await write())
      const after = await get(app, url)
      expect(after.body).toBe(before.body)
      expect(after.headers.etag).toBe(before.headers.etag)
    }
    expect((await get(app, `/docs/${collection}:2`)).statusCode).toBe(404)
    await expectValidating(app, collection)
  })

  it('is 503 with Retry-After for a write that waited that long for the only worker', async () => {
    const collection = await collectionWith(app, bombSchema)
    await workerReady(app)
    const first = put(app, `/docs/${collection}:1`, { name: 'x', n: 1 })
    await eventually(async () => app.schemas.validation.activity().running > 0, 5000)
    const waiting = await put(app, `/docs/${collection}:2`, { name: 'y', n: 1 })
    expect(waiting.statusCode).toBe(503)
    expect(waiting.headers['retry-after']).toBe('1')
    expect(waiting.json()).toMatchObject({ code: 'DOCS_ERR_SERVICE_BUSY' })
    expectOverLimit(await first)
    await expectValidating(app, collection)
  })
})

describe('the line of writes waiting for a worker', () => {
  it('holds a bounded number of characters: a write that would pass it is 503 at once, and nothing is written', async () => {
    const service = await buildTestApp({ validation: settings({ maxWaitingCharacters: 300_000 }) })
    const collection = await collectionWith(service, bombSchema)
    await workerReady(service)
    // The only worker runs the slow write; the next two large ones wait for it, or would.
    const first = put(service, `/docs/${collection}:slow`, { name: 'x', n: 1 })
    await eventually(async () => service.schemas.validation.activity().running > 0, 5000)
    let waitedSettled = false
    const waited = put(service, `/docs/${collection}:a`, { name: 'a'.repeat(200_000) }).finally(() => { waitedSettled = true })
    await eventually(async () => service.schemas.validation.activity().waiting === 1, 5000)
    expect(service.schemas.validation.activity().waitingCharacters).toBeGreaterThan(200_000)
    const refused = await put(service, `/docs/${collection}:b`, { name: 'b'.repeat(200_000) })
    expect(waitedSettled).toBe(false)
    expect(refused.statusCode).toBe(503)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.json()).toMatchObject({ code: 'DOCS_ERR_SERVICE_BUSY' })
    // The one that waited waited MAX_VALIDATION_MS for the worker: 503 too, and the line is empty again.
    expect((await waited).statusCode).toBe(503)
    expectOverLimit(await first)
    expect(service.schemas.validation.activity()).toMatchObject({ waiting: 0, waitingCharacters: 0 })
    for (const key of ['slow', 'a', 'b']) expect((await get(service, `/docs/${collection}:${key}`)).statusCode).toBe(404)
    await expectValidating(service, collection)
  })
})

describe('registering a schema', () => {
  it('is 422 when compiling it passes MAX_VALIDATION_MS, while other requests are answered; nothing is registered', async () => {
    const collection = uniqueKey('huge')
    const properties = Object.fromEntries(Array.from({ length: 10_000 }, (_, index) =>
      [`p${index}`, { type: 'string', minLength: 1, maxLength: 10 }]))
    const response = await readWhileValidating(app, () => register(app, collection, { type: 'object', properties }))
    expectOverLimit(response)
    expect(response.json().detail).toMatch(/the schema was not registered/)
    expect((await get(app, `/schemas/${collection}`)).statusCode).toBe(404)
    await expectValidating(app, await collectionWith(app, { type: 'object', properties: { name: { type: 'string' } } }))
  })

  it('reports the documents already there as incomplete when checking them passes MAX_VALIDATION_MS, and registers it', async () => {
    const collection = uniqueKey('existing')
    for (const [id, document] of [['1', { name: 'a' }], ['2', { name: 'b', n: 1 }], ['3', { name: 'c' }]] as const) {
      expect((await put(app, `/docs/${collection}:${id}`, document)).statusCode).toBe(201)
    }
    await workerReady(app)
    const response = await register(app, collection, bombSchema)
    expect(response.statusCode).toBe(201)
    expect(response.json().existingDocuments).toMatchObject({ complete: false, violating: 0 })
    expect((await get(app, `/schemas/${collection}`)).json()).toEqual(bombSchema)
    await expectValidating(app, collection)
  })
})

describe('a validation that needs more than MAX_VALIDATION_MEMORY_MB', () => {
  it('is 422 naming that setting; the worker, dead of it, is replaced', async () => {
    const small = await buildTestApp({ validation: settings({ maxMs: 20_000, memoryMb: 32 }) })
    // Every one of the 2^40 paths to the leaf fails on a string, and ajv keeps an error for each.
    const collection = await collectionWith(small, bombSchema)
    const response = await put(small, `/docs/${collection}:1`, { name: 'x', n: 'not a number' })
    expectOverLimit(response, 'MAX_VALIDATION_MEMORY_MB', 32)
    expect((await get(small, `/docs/${collection}:1`)).statusCode).toBe(404)
    await expectValidating(small, collection)
  })
})
