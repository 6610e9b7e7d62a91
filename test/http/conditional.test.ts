import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, patch, put, remove, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

async function created (document: unknown = { count: 0, nested: { list: [1] } }) {
  const key = uniqueKey()
  const response = await put(app, `/docs/${key}`, document)
  return { key, etag: response.headers.etag as string }
}

describe('ETag', () => {
  it('is strong and the same at every location of one document version', async () => {
    const { key, etag } = await created()
    expect(etag).toMatch(/^"\d+"$/)
    expect((await get(app, `/docs/${key}`)).headers.etag).toBe(etag)
    expect((await get(app, `/docs/${key}/nested/list/0`)).headers.etag).toBe(etag)
  })

  it('changes on every write, whichever location it touches', async () => {
    const { key, etag } = await created()
    const seen = new Set([etag])
    const writes = [
      () => put(app, `/docs/${key}/count`, 1),
      () => put(app, `/docs/${key}/count`, 1),
      () => patch(app, `/docs/${key}/nested`, { x: 1 }),
      () => remove(app, `/docs/${key}/nested/list/0`),
      () => put(app, `/docs/${key}`, { count: 0, nested: { list: [1] } })
    ]
    for (const write of writes) {
      const response = await write()
      expect(response.statusCode).toBeLessThan(300)
      seen.add(response.headers.etag as string)
      expect((await get(app, `/docs/${key}/count`)).headers.etag).toBe(response.headers.etag)
    }
    expect(seen.size).toBe(writes.length + 1)
  })

  it('never comes back after a document is deleted and created again', async () => {
    const { key, etag } = await created()
    await remove(app, `/docs/${key}`)
    const again = await put(app, `/docs/${key}`, { count: 0, nested: { list: [1] } })
    expect(again.headers.etag).not.toBe(etag)
    expect((await put(app, `/docs/${key}/count`, 1, { 'if-match': etag })).statusCode).toBe(412)
  })
})

describe('If-None-Match on GET and HEAD', () => {
  it.each([
    ['the current tag', (etag: string) => etag],
    ['a list holding it', (etag: string) => `"1", ${etag}`],
    ['its weak form', (etag: string) => `W/${etag}`],
    ['*', () => '*']
  ])('is 304 for %s', async (_name, header) => {
    const { key, etag } = await created()
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await app.inject({ method, url: `/docs/${key}/nested`, headers: { 'if-none-match': header(etag) } })
      expect(response.statusCode).toBe(304)
      expect(response.body).toBe('')
      expect(response.headers.etag).toBe(etag)
    }
  })

  it('is 200 with the body for an old tag', async () => {
    const { key, etag } = await created()
    await put(app, `/docs/${key}/count`, 5)
    const response = await get(app, `/docs/${key}/count`, { 'if-none-match': etag })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toBe(5)
  })
})

describe('If-Match on writes', () => {
  const writes = {
    'PUT root': (key: string, headers: Record<string, string>) => put(app, `/docs/${key}`, { replaced: true }, headers),
    'PUT location': (key: string, headers: Record<string, string>) => put(app, `/docs/${key}/count`, 99, headers),
    'PATCH': (key: string, headers: Record<string, string>) => patch(app, `/docs/${key}/nested`, { x: 1 }, headers),
    'DELETE location': (key: string, headers: Record<string, string>) => remove(app, `/docs/${key}/count`, headers),
    'DELETE root': (key: string, headers: Record<string, string>) => remove(app, `/docs/${key}`, headers)
  }

  it.each(Object.entries(writes))('%s: 412 on a stale tag, and nothing is written', async (_name, write) => {
    const { key, etag } = await created()
    await put(app, `/docs/${key}/count`, 1)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    for (const header of [etag, '"0"', 'W/' + etag, '"not-a-version"']) {
      const response = await write(key, { 'if-match': header })
      expect(response.statusCode).toBe(412)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_PRECONDITION_FAILED', status: 412 })
    }
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })

  it.each(Object.entries(writes))('%s: succeeds on the current tag, in a list, or *', async (_name, write) => {
    for (const header of [(etag: string) => etag, (etag: string) => `"1", ${etag}`, () => '*']) {
      const { key, etag } = await created()
      const response = await write(key, { 'if-match': header(etag) })
      expect(response.statusCode).toBeLessThan(300)
    }
  })

  it('is 412 when PUT at the root meets no document', async () => {
    const key = uniqueKey()
    expect((await put(app, `/docs/${key}`, 1, { 'if-match': '*' })).statusCode).toBe(412)
    expect((await get(app, `/docs/${key}`)).statusCode).toBe(404)
  })

  it('lets a 404 win over the precondition, as RFC 9110 section 13.2.1 asks', async () => {
    const { key, etag } = await created()
    expect((await put(app, `/docs/${key}/missing/x`, 1, { 'if-match': etag })).statusCode).toBe(404)
    expect((await remove(app, `/docs/${uniqueKey()}`, { 'if-match': '"1"' })).statusCode).toBe(404)
  })

  it('is 400 for a header that is not an entity-tag list', async () => {
    const { key } = await created()
    const response = await put(app, `/docs/${key}/count`, 1, { 'if-match': 'no-quotes' })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_BAD_REQUEST' })
  })
})

describe('If-None-Match: * on PUT creates only', () => {
  it('creates a missing document (201) and refuses an existing one (412)', async () => {
    const key = uniqueKey()
    expect((await put(app, `/docs/${key}`, { v: 1 }, { 'if-none-match': '*' })).statusCode).toBe(201)
    const second = await put(app, `/docs/${key}`, { v: 2 }, { 'if-none-match': '*' })
    expect(second.statusCode).toBe(412)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ v: 1 })
  })

  it('lets exactly one of many concurrent creators win', async () => {
    const key = uniqueKey()
    const responses = await Promise.all(Array.from({ length: 20 }, (_, writer) =>
      put(app, `/docs/${key}`, { writer }, { 'if-none-match': '*' })))
    const statuses = responses.map((response) => response.statusCode).sort()
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412)).toHaveLength(19)
  })
})

describe('read-modify-write with If-Match loses no update', () => {
  it('20 clients x 25 increments of one counter end at exactly 500', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { counter: 0 })
    let conflicts = 0
    const client = async () => {
      for (let done = 0; done < 25;) {
        const read = await get(app, `/docs/${key}/counter`)
        const written = await put(app, `/docs/${key}/counter`, read.json() + 1, {
          'if-match': read.headers.etag as string, prefer: 'return=minimal'
        })
        if (written.statusCode === 200) done++
        else if (written.statusCode === 412) conflicts++
        else throw new Error(`unexpected ${written.statusCode}: ${written.body}`)
      }
    }
    await Promise.all(Array.from({ length: 20 }, client))
    expect((await get(app, `/docs/${key}/counter`)).json()).toBe(500)
    expect(conflicts).toBeGreaterThan(0)
  })
})
