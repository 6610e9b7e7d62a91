import { describe, expect, it } from 'vitest'
import {
  buildTestApp, connectRedis, get, jsonPatch, operate, patch, put, remove, send, uniqueKey, versionKeyOf
} from '../helpers/app.js'
import { logOf } from '../../src/documents/store/context.js'

const app = await buildTestApp()

const accountSchema = {
  type: 'object',
  properties: {
    owner: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    balance: { type: 'integer', minimum: 0, maximum: 100 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
    active: { type: 'boolean', const: true },
    nickname: { type: 'string', default: 'none' },
    profile: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city']
    }
  },
  required: ['owner', 'balance']
}

const valid = { owner: 'ada', email: 'ada@example.com', balance: 10, tags: ['a'], active: true, profile: { city: 'Paris' } }

/** A collection with the account schema and one valid document in it. */
async function account () {
  const collection = uniqueKey('accounts')
  expect((await put(app, `/schemas/${collection}`, accountSchema)).statusCode).toBe(201)
  const url = `/docs/${collection}:1`
  const created = await put(app, url, valid)
  expect(created.statusCode).toBe(201)
  return { collection, url, etag: created.headers.etag as string }
}

type Response = Awaited<ReturnType<typeof get>>

async function expectRejected (response: Response, url: string, pointer: string, keyword: string) {
  expect(response.statusCode).toBe(422)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  const problem = response.json()
  expect(problem).toMatchObject({ code: 'DOCS_ERR_SCHEMA_VIOLATION', type: '/problems/schema-violation', status: 422 })
  expect(problem.errors).toContainEqual(expect.objectContaining({ pointer, keyword, detail: expect.any(String) }))
  const after = await get(app, url)
  expect(after.json()).toEqual(valid)
  return after
}

describe('a write to a document of a validated collection', () => {
  it('is checked whole when it replaces the document (PUT)', async () => {
    const { url, etag } = await account()
    const after = await expectRejected(await put(app, url, { ...valid, balance: 101 }), url, '/balance', 'maximum')
    expect(after.headers.etag).toBe(etag)
    await expectRejected(await put(app, url, { owner: 'x' }), url, '', 'required')
  })

  it('is checked on the document it would leave, for a PUT inside it', async () => {
    const { url } = await account()
    await expectRejected(await put(app, `${url}/balance`, -5), url, '/balance', 'minimum')
    await expectRejected(await put(app, `${url}/profile/city`, 7), url, '/profile/city', 'type')
    await expectRejected(await put(app, `${url}/profile`, {}), url, '/profile', 'required')
    const ok = await put(app, `${url}/balance`, 99)
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toBe('99')
  })

  it('is checked after a merge patch, which may remove members', async () => {
    const { url } = await account()
    await expectRejected(await patch(app, url, { owner: null }), url, '', 'required')
    await expectRejected(await patch(app, url, { profile: { city: null } }), url, '/profile', 'required')
    const ok = await patch(app, url, { balance: 11, nickname: 'lovelace' })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toMatchObject({ balance: 11, nickname: 'lovelace' })
  })

  it('is checked after a JSON Patch, whose intermediate states may break the schema', async () => {
    const { url } = await account()
    await expectRejected(await jsonPatch(app, url, [{ op: 'remove', path: '/owner' }]), url, '', 'required')
    await expectRejected(await jsonPatch(app, url, [{ op: 'add', path: '/tags/-', value: 1 }]), url, '/tags/1', 'type')
    const ok = await jsonPatch(app, url, [
      { op: 'remove', path: '/owner' },
      { op: 'add', path: '/owner', value: 'grace' }
    ])
    expect(ok.statusCode).toBe(200)
    expect(ok.json().owner).toBe('grace')
  })

  it('is checked after operations, and answers their results when it passes', async () => {
    const { url } = await account()
    await expectRejected(await operate(app, `${url}/balance`, { op: 'incr', by: 91 }), url, '/balance', 'maximum')
    await expectRejected(await operate(app, `${url}/balance`, { op: 'mult', by: 0.55 }), url, '/balance', 'type')
    await expectRejected(await operate(app, `${url}/tags`, { op: 'push', values: ['b', 'c', 'd'] }), url, '/tags', 'maxItems')
    await expectRejected(await operate(app, `${url}/active`, { op: 'toggle' }), url, '/active', 'const')
    await expectRejected(await operate(app, url, [
      { op: 'incr', path: '/balance', by: 1 },
      { op: 'append', path: '/email', value: ' not an email' }
    ]), url, '/email', 'format')
    const ok = await operate(app, `${url}/balance`, { op: 'incr', by: 90 })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toEqual({ result: 100 })
  })

  it('is checked when it removes a member, but removing the whole document is always allowed', async () => {
    const { url } = await account()
    await expectRejected(await remove(app, `${url}/owner`), url, '', 'required')
    expect((await remove(app, `${url}/email`)).statusCode).toBe(204)
    expect((await remove(app, url)).statusCode).toBe(204)
  })

  it('never coerces, adds defaults or removes properties', async () => {
    const { url } = await account()
    await expectRejected(await put(app, `${url}/balance`, '12'), url, '/balance', 'type')
    const withExtra = { ...valid, extra: { kept: [1, 'two'] } }
    expect((await put(app, url, withExtra)).statusCode).toBe(200)
    const read = await get(app, url)
    expect(read.json()).toEqual(withExtra)
    expect(read.json()).not.toHaveProperty('nickname')
  })

  it('reaches nothing outside the collection: other prefixes and keys without a separator', async () => {
    const { collection } = await account()
    expect((await put(app, `/docs/${collection}x:1`, { anything: true })).statusCode).toBe(201)
    expect((await put(app, `/docs/${collection}`, [1, 2])).statusCode).toBe(201)
  })

  it('is checked per item in a batch: rejected items are 422 with errors, the others are written', async () => {
    const { collection } = await account()
    const response = await send(app, 'POST', '/batch/write', JSON.stringify({
      items: [
        { key: `${collection}:2`, value: valid },
        { key: `${collection}:3`, value: { ...valid, balance: 'lots' } },
        { key: uniqueKey('free'), value: { balance: 'lots' } }
      ]
    }))
    expect(response.statusCode).toBe(200)
    const [first, second, third] = response.json().items
    expect(first).toMatchObject({ status: 201 })
    expect(second).toMatchObject({ status: 422, errors: [expect.objectContaining({ pointer: '/balance', keyword: 'type' })] })
    expect(second).not.toHaveProperty('etag')
    expect(third).toMatchObject({ status: 201 })
    expect((await get(app, `/docs/${collection}:3`)).statusCode).toBe(404)
    expect((await get(app, `/docs/${collection}:2`)).json()).toEqual(valid)
  })

  it('still answers 404, 409 and 412 for what it would answer them without a schema', async () => {
    const { collection, url } = await account()
    expect((await patch(app, `/docs/${collection}:missing`, { owner: 'x' })).statusCode).toBe(404)
    expect((await put(app, `${url}/nowhere/deep`, 1)).statusCode).toBe(404)
    expect((await put(app, `${url}/balance`, 5, { 'if-match': '"1"' })).statusCode).toBe(412)
    expect((await operate(app, `${url}/owner`, { op: 'incr', by: 1 })).statusCode).toBe(409)
    const redis = await connectRedis()
    await redis.sendCommand(['SET', `${app.keyPrefix}${collection}:plain`, 'x'])
    expect((await put(app, `/docs/${collection}:plain/a`, 1)).statusCode).toBe(409)
  })

  it('leaves no preview or working keys behind', async () => {
    const { collection, url } = await account()
    await put(app, `${url}/balance`, -1)
    await put(app, `${url}/balance`, 3)
    await jsonPatch(app, url, [{ op: 'remove', path: '/owner' }])
    const redis = await connectRedis()
    const keys = (await redis.sendCommand<string[]>(['KEYS', `${app.keyPrefix}*`])).filter((key) => key.includes(`${collection}:`))
    // The document and its version record; its entries are in the event log (see Live changes).
    expect(keys.sort()).toEqual([`${app.keyPrefix}${collection}:1`, versionKeyOf(app.keyPrefix, `${collection}:1`)].sort())
    const log = logOf(app, `${collection}:1`)
    const entries = await redis.sendCommand<Array<[string, string[]]>>(['XRANGE', log, '-', '+'])
    // The two writes that landed: neither their previews nor the rejected writes recorded anything.
    expect(entries.filter(([, fields]) => fields.includes(`${app.keyPrefix}${collection}:1`))).toHaveLength(2)
  })
})

describe('a schema change', () => {
  it('applies at once on every instance sharing the Redis, and removing it lifts the rules', async () => {
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const collection = uniqueKey('shared')
    const url = `/docs/${collection}:1`
    expect((await put(other, url, { owner: 'ada', balance: 'none' })).statusCode).toBe(201)

    expect((await put(app, `/schemas/${collection}`, accountSchema)).statusCode).toBe(201)
    const rejected = await put(other, `${url}/owner`, 'grace')
    expect(rejected.statusCode).toBe(422)
    expect(rejected.json().errors).toContainEqual(expect.objectContaining({ pointer: '/balance' }))
    expect((await put(other, `${url}/balance`, 1)).statusCode).toBe(200)

    expect((await put(app, `/schemas/${collection}`, { type: 'object', required: ['id'] })).statusCode).toBe(200)
    expect((await put(other, `${url}/balance`, 2)).statusCode).toBe(422)

    expect((await remove(app, `/schemas/${collection}`)).statusCode).toBe(204)
    expect((await put(other, url, { free: 'again' })).statusCode).toBe(200)
    expect((await put(other, `${url}/free`, 'still')).statusCode).toBe(200)
  })

  it('never rejects a batch item with a schema another instance has since removed', async () => {
    const other = await buildTestApp({ keyPrefix: app.keyPrefix })
    const collection = uniqueKey('shared')
    expect((await put(app, `/schemas/${collection}`, accountSchema)).statusCode).toBe(201)
    const write = () => send(other, 'POST', '/batch/write', JSON.stringify({ items: [{ key: `${collection}:1`, value: [] }] }))
    expect((await write()).json().items[0]).toMatchObject({ status: 422 })
    expect((await remove(app, `/schemas/${collection}`)).statusCode).toBe(204)
    expect((await write()).json().items[0]).toMatchObject({ status: 201 })
  })
})

describe('uniqueItems on a large array', () => {
  it('is checked in linear time: 40,000 objects at once (ajv compared every pair, 279 s), a duplicate in any member order found', async () => {
    const collection = uniqueKey('unique')
    expect((await put(app, `/schemas/${collection}`, { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } })).statusCode).toBe(201)
    const list = Array.from({ length: 40_000 }, (_, index) => ({ a: index, b: 'x' }))
    expect((await put(app, `/docs/${collection}:1`, { list })).statusCode).toBe(201)
    const refused = await put(app, `/docs/${collection}:2`, { list: [...list, { b: 'x', a: 7 }] })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().errors).toEqual([expect.objectContaining({ pointer: '/list', keyword: 'uniqueItems' })])
  })
})
