import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, remove, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

describe('DELETE', () => {
  it('removes the whole document at the root (204), then 404', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const response = await remove(app, `/docs/${key}`)
    expect(response.statusCode).toBe(204)
    expect(response.body).toBe('')
    expect((await get(app, `/docs/${key}`)).statusCode).toBe(404)
    expect(await redis.sendCommand(['KEYS', `${app.keyPrefix}${key}*`])).toEqual([])
    expect((await remove(app, `/docs/${key}`)).statusCode).toBe(404)
  })

  it('removes a member or an element, with a new ETag', async () => {
    const key = uniqueKey()
    const created = await put(app, `/docs/${key}`, { a: 1, list: ['x', 'y', 'z'], map: { 0: 'zero' } })
    const removed = await remove(app, `/docs/${key}/list/1`)
    expect(removed.statusCode).toBe(204)
    expect(removed.headers.etag).toMatch(/^"\d+"$/)
    expect(removed.headers.etag).not.toBe(created.headers.etag)
    expect((await remove(app, `/docs/${key}/map/0`)).statusCode).toBe(204)
    expect((await remove(app, `/docs/${key}/a`)).statusCode).toBe(204)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ list: ['x', 'z'], map: {} })
  })

  it.each(['/missing', '/list/3', '/list/-', '/a/b'])('is 404 when nothing is at %s', async (pointer) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1, list: [1, 2, 3] })
    expect((await remove(app, `/docs/${key}${pointer}`)).statusCode).toBe(404)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ a: 1, list: [1, 2, 3] })
  })

  it('is 404 for a missing document', async () => {
    expect((await remove(app, `/docs/${uniqueKey()}/a`)).statusCode).toBe(404)
  })
})
