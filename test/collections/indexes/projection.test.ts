import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put } from '../../helpers/app.js'
import { indexReady, query, type Page } from './helpers.js'

/*
 * `fields` shapes each match's value; it never decides which documents match. A match holding none of the
 * projected pointers is answered with an empty object and the document's ETag.
 */

const app = await buildTestApp()
const redis = await connectRedis()

describe('a projection never drops a match', () => {
  it('pages through every match when some lack every projected pointer, and counts them all', async () => {
    const docs = Array.from({ length: 900 }, (_, index) => ({
      key: `proj:${String(index).padStart(4, '0')}`,
      value: { flag: index % 2 === 0 ? false : true, ...(index % 10 === 0 ? {} : { total: index }), ...(index % 7 === 0 ? { title: `t${index}` } : {}) }
    }))
    await Promise.all(docs.map(async (doc) => expect((await put(app, `/docs/${doc.key}`, doc.value)).statusCode).toBeLessThan(300)))
    // A document written behind the service's back has no version record: version "0".
    await redis.sendCommand(['JSON.SET', `${app.keyPrefix}proj:bare`, '$', '{"flag":false}'])
    await indexReady(app, 'proj', [{ pointer: '/flag', type: 'boolean' }, { pointer: '/total', type: 'number', sortable: true }])
    const matching = [...docs.filter((doc) => doc.value.flag === false).map((doc) => doc.key), 'proj:bare']
    for (const body of [
      { filter: { '/flag': { $eq: false } }, fields: ['/total'], limit: 50 },
      { filter: { '/flag': { $eq: false } }, fields: ['/total', '/title', '/absent'], limit: 37 },
      { filter: { '/flag': { $eq: false } }, fields: ['/absent'], limit: 100 },
      { filter: { '/flag': { $eq: false } }, fields: ['/title', '/total'], sort: [{ pointer: '/total', order: 'desc' }], limit: 50 }
    ]) {
      const seen: Page['items'] = []
      let cursor: string | null = null
      let count: number | undefined
      do {
        const response = await query(app, 'proj', { ...body, ...(cursor ? { cursor } : {}) }, { prefer: 'count=exact' })
        expect(response.statusCode, response.body).toBe(200)
        const page = response.json() as Page
        count = page.count
        seen.push(...page.items)
        cursor = page.cursor
      } while (cursor !== null)
      expect(seen.map((item) => item.key).sort(), JSON.stringify(body)).toEqual(matching.sort())
      expect(count).toBe(seen.length)
      for (const item of seen) {
        const doc = docs.find((candidate) => candidate.key === item.key)?.value as Record<string, unknown> | undefined ?? { flag: false }
        const expected = Object.fromEntries(body.fields.flatMap((pointer) => pointer.slice(1) in doc ? [[pointer, doc[pointer.slice(1)]]] : []))
        expect(item.value, item.key).toEqual(expected)
      }
      expect(seen.find((item) => item.key === 'proj:bare')!.etag).toBe('"0"')
      const sample = seen.find((item) => item.key === 'proj:0010')!
      expect(sample.value).toEqual({})
      expect(sample.etag).toBe((await get(app, '/docs/proj:0010')).headers.etag)
    }
  }, 60_000)

  it('answers each item at one version, the one its ETag names, while its document is being rewritten (or 503, never a mix)', async () => {
    const roundOf = new Map<string, number>([[(await put(app, '/docs/projw:1', { flag: true, a: 0, b: 0 })).headers.etag as string, 0]])
    await indexReady(app, 'projw', [{ pointer: '/flag', type: 'boolean' }])
    // Each query races one write: the page's reads of the document may straddle it.
    let answered = 0
    for (let round = 1; round <= 80; round++) {
      const [written, response] = await Promise.all([
        put(app, '/docs/projw:1', { flag: true, a: round, b: round }),
        query(app, 'projw', { filter: { '/flag': true }, fields: ['/a', '/b'] })
      ])
      expect(written.statusCode).toBe(200)
      roundOf.set(written.headers.etag as string, round)
      if (response.statusCode === 503) continue
      expect(response.statusCode, response.body).toBe(200)
      answered++
      const [item] = (response.json() as Page).items
      const value = item!.value as Record<string, number>
      expect(value['/a']).toBe(value['/b'])
      expect(roundOf.get(item!.etag)).toBe(value['/a'])
    }
    expect(answered).toBeGreaterThan(70)
  }, 60_000)
})
