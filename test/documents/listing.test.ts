import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, put, remove } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

async function listAll (prefix: string, limit: number) {
  const keys: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const query = new URLSearchParams({ prefix, limit: String(limit), ...(cursor ? { cursor } : {}) })
    const response = await app.inject({ method: 'GET', url: `/docs?${query}` })
    expect(response.statusCode).toBe(200)
    const page = response.json() as { keys: string[], cursor: string | null }
    if (page.cursor) expect(response.headers.link).toContain('rel="next"')
    keys.push(...page.keys)
    cursor = page.cursor
    pages++
  } while (cursor && pages < 100_000)
  expect(cursor, 'the listing ends').toBeNull()
  return { keys, pages }
}

describe('GET /docs lists the namespace', () => {
  it('pages through every document with a prefix, and nothing else', async () => {
    const expected = Array.from({ length: 250 }, (_, index) => `list:a:${index}`)
    await Promise.all(expected.map((key) => put(app, `/docs/${encodeURIComponent(key)}`, { key })))
    await put(app, '/docs/list%3Ab%3A0', {})
    await redis.set(`${app.keyPrefix}list:a:not-json`, 'x')
    await redis.sendCommand(['JSON.SET', 'list:a:outside-namespace', '$', '{}'])
    const { keys, pages } = await listAll('list:a:', 50)
    expect(new Set(keys)).toEqual(new Set(expected))
    expect(pages).toBeGreaterThan(1)
    await redis.del('list:a:outside-namespace')
  })

  it('treats glob characters in the prefix as text', async () => {
    expect((await put(app, `/docs/${encodeURIComponent('glob*[x]?\\')}`, {})).statusCode).toBe(201)
    expect((await put(app, '/docs/globber', {})).statusCode).toBe(201)
    // A large page: on a suite's cluster the keyspace holds every file's keys, which a SCAN walks through.
    expect((await listAll('glob*[x]?\\', 1000)).keys).toEqual(['glob*[x]?\\'])
    expect((await listAll('glob', 1000)).keys.sort()).toEqual(['glob*[x]?\\', 'globber'])
  })

  it('returns every document that exists throughout, under concurrent inserts and deletes', async () => {
    const stable = Array.from({ length: 200 }, (_, index) => `churn:stable:${index}`)
    await Promise.all(stable.map((key) => put(app, `/docs/${encodeURIComponent(key)}`, {})))
    let churning = true
    const churn = (async () => {
      for (let round = 0; churning && round < 2000; round++) {
        const key = encodeURIComponent(`churn:temp:${round}`)
        await put(app, `/docs/${key}`, { round })
        if (round % 2 === 0) await remove(app, `/docs/${key}`)
      }
    })()
    const { keys } = await listAll('churn:', 20)
    churning = false
    await churn
    const seen = new Set(keys)
    expect(stable.filter((key) => !seen.has(key))).toEqual([])
  })

  it('refuses a cursor it did not issue, or one issued for another prefix', async () => {
    const first = (await app.inject({ method: 'GET', url: '/docs?prefix=list:a:&limit=1' })).json()
    expect(first.cursor).toBeTruthy()
    for (const url of ['/docs?cursor=garbage', `/docs?prefix=other&cursor=${first.cursor}`]) {
      const response = await app.inject({ method: 'GET', url })
      expect(response.statusCode).toBe(400)
    }
    expect((await app.inject({ method: 'GET', url: '/docs?limit=0' })).statusCode).toBe(400)
  })

  it('refuses a forged cursor whatever number it holds, with 400 and never a 500', async () => {
    const forge = (prefix: string, cursor: unknown) => Buffer.from(JSON.stringify([prefix, cursor])).toString('base64url')
    for (const cursor of ['18446744073709551616', '99999999999999999999999999', '-1', '1e3', '']) {
      const response = await app.inject({ method: 'GET', url: `/docs?prefix=forged&cursor=${forge('forged', cursor)}` })
      expect(response.statusCode, cursor).toBe(400)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(response.json().code).toBe('DOCS_ERR_BAD_REQUEST')
    }
    const largest = await app.inject({ method: 'GET', url: `/docs?prefix=forged&cursor=${forge('forged', '18446744073709551615')}` })
    expect(largest.statusCode).toBe(200)
  })

  it('never lists the keys scripts keep beside documents, even one left behind', async () => {
    await put(app, '/docs/inner%3Adoc', {})
    await redis.sendCommand(['JSON.SET', `${app.keyPrefix}inner:doc\u001fcopy`, '$', '{}'])
    // A large page: on a suite's cluster the keyspace holds every file's keys, which a SCAN walks through.
    expect((await listAll('inner:', 1000)).keys).toEqual(['inner:doc'])
    await redis.del(`${app.keyPrefix}inner:doc\u001fcopy`)
  })
})
