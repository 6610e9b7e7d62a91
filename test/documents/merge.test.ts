import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, patch, put, send, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

/** RFC 7396 appendix A, every example. */
const rfc7396Examples: Array<[unknown, unknown, unknown]> = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }]
]

describe('PATCH with application/merge-patch+json applies RFC 7396', () => {
  it.each(rfc7396Examples)('%j merged with %j is %j', async (original, mergePatch, result) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, original)
    const response = await patch(app, `/docs/${key}`, mergePatch)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(result)
    expect((await get(app, `/docs/${key}`)).json()).toEqual(result)
  })

  it('accepts application/json as a merge patch too', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const response = await send(app, 'PATCH', `/docs/${key}`, '{"b":2}', {}, 'application/json')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ a: 1, b: 2 })
  })
})

describe('PATCH /docs/{key}/{pointer} merges at a location', () => {
  it('merges into an existing object', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { user: { name: 'Ann', age: 30 }, other: 1 })
    const response = await patch(app, `/docs/${key}/user`, { age: null, city: 'Oslo' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ name: 'Ann', city: 'Oslo' })
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ user: { name: 'Ann', city: 'Oslo' }, other: 1 })
  })

  it('creates a new member as RFC 7396 does, dropping nulls at any depth (201)', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: {} })
    const response = await patch(app, `/docs/${key}/a/fresh`, { keep: 1, drop: null, deep: { drop: null, keep: [null] } })
    expect(response.statusCode).toBe(201)
    expect(response.headers.location).toBe(`/docs/${key}/a/fresh`)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ a: { fresh: { keep: 1, deep: { keep: [null] } } } })
  })

  it('replaces a location with a non-object patch', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { list: [{ a: 1 }, 2] })
    expect((await patch(app, `/docs/${key}/list/0`, [3])).json()).toEqual([3])
    expect((await patch(app, `/docs/${key}/list/1`, { x: null, y: 1 })).json()).toEqual({ y: 1 })
    expect((await get(app, `/docs/${key}/list`)).json()).toEqual([[3], { y: 1 }])
  })

  it.each([
    ['a missing document', null, ''],
    ['a missing parent', { a: {} }, '/b/c'],
    ['an array element out of range', { list: [] }, '/list/0'],
    ['inside a scalar', { n: 1 }, '/n/x']
  ])('is 404 for %s, and writes nothing', async (_case, document, pointer) => {
    const key = uniqueKey()
    if (document) await put(app, `/docs/${key}`, document)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await patch(app, `/docs/${key}${pointer}`, { x: 1 })
    expect(response.statusCode).toBe(404)
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })
})
