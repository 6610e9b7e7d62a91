import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, jsonPatch, put, send, uniqueKey, versionKeyOf } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

interface ConformanceCase { comment?: string, doc: unknown, patch: unknown[], expected?: unknown, error?: string, disabled?: boolean }

/** The community JSON Patch suite (json-patch-tests), with RFC 6902's own examples (spec_tests). */
function suite (file: string): Array<[string, ConformanceCase]> {
  const path = createRequire(import.meta.url).resolve(`json-patch-test-suite/${file}`)
  const cases = JSON.parse(readFileSync(path, 'utf8')) as ConformanceCase[]
  return cases
    .filter((test) => !test.disabled)
    .map((test, index) => [`${file} #${index}: ${test.comment ?? test.error ?? JSON.stringify(test.patch)}`, test])
}

describe.each(['spec_tests.json', 'tests.json'])('JSON Patch conformance: %s', (file) => {
  it.each(suite(file))('%s', async (_name, test) => {
    const key = uniqueKey()
    expect((await put(app, `/docs/${key}`, test.doc)).statusCode).toBe(201)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await jsonPatch(app, `/docs/${key}`, test.patch)
    if (test.error !== undefined) {
      expect(response.statusCode).toBeGreaterThanOrEqual(400)
      expect(response.statusCode).toBeLessThan(500)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
    } else {
      expect(response.statusCode).toBe(200)
      const expected = 'expected' in test ? test.expected : test.doc
      expect(response.json()).toEqual(expected)
      expect((await get(app, `/docs/${key}`)).json()).toEqual(expected)
    }
  })
})

describe('JSON Patch applies all operations or none', () => {
  it('leaves the document byte-identical when the last operation fails, and names it', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1, list: [1, 2, 3], nested: { keep: true } })
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const versionBefore = await redis.get(versionKeyOf(app.keyPrefix, key))
    const response = await jsonPatch(app, `/docs/${key}`, [
      { op: 'add', path: '/b', value: 2 },
      { op: 'remove', path: '/list/0' },
      { op: 'move', from: '/nested', path: '/moved' },
      { op: 'test', path: '/a', value: 'not one' }
    ])
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_PATCH_FAILED', operation: 3, path: '/a' })
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
    expect(await redis.get(versionKeyOf(app.keyPrefix, key))).toBe(versionBefore)
    expect(await redis.keys(`${app.keyPrefix}${key}\u001f[ws]*`)).toEqual([])
  })

  it.each([
    [{ op: 'remove', path: '/missing' }, 0, '/missing'],
    [{ op: 'replace', path: '/list/9', value: 0 }, 0, '/list/9'],
    [{ op: 'add', path: '/list/01', value: 0 }, 0, '/list/01']
  ])('names the failing operation %j', async (operation, index, path) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { list: [1] })
    const response = await jsonPatch(app, `/docs/${key}`, [operation])
    expect(response.statusCode).toBe(409)
    expect(response.json()).toMatchObject({ operation: index, path })
  })

  it('stays atomic under concurrent writers: test-and-set increments lose nothing', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { counter: 0 })
    const client = async () => {
      for (let done = 0; done < 10;) {
        const current = (await get(app, `/docs/${key}/counter`)).json() as number
        const response = await jsonPatch(app, `/docs/${key}`, [
          { op: 'test', path: '/counter', value: current },
          { op: 'replace', path: '/counter', value: current + 1 }
        ], { prefer: 'return=minimal' })
        if (response.statusCode === 200) done++
        else expect(response.statusCode).toBe(409)
      }
    }
    await Promise.all(Array.from({ length: 10 }, client))
    expect((await get(app, `/docs/${key}/counter`)).json()).toBe(100)
  })
})

describe('JSON Patch details', () => {
  it('applies relative to the URL pointer', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { user: { tags: ['a'] }, other: 1 })
    const response = await jsonPatch(app, `/docs/${key}/user`, [
      { op: 'add', path: '/tags/-', value: 'b' },
      { op: 'copy', from: '/tags/0', path: '/first' }
    ])
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ tags: ['a', 'b'], first: 'a' })
    expect((await get(app, `/docs/${key}/other`)).json()).toBe(1)
  })

  it('keeps the exact digits of values', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, {})
    await send(app, 'PATCH', `/docs/${key}`, '[{"op":"add","path":"/id","value":12345678901234567890},{"op":"add","path":"/f","value":1.0}]',
      {}, 'application/json-patch+json')
    expect((await get(app, `/docs/${key}`)).body).toBe('{"id":12345678901234567890,"f":1.0}')
  })

  it('compares numbers by value and objects without order in test', async () => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, '{"n":1,"big":12345678901234567890,"o":{"a":1,"b":[1.5,-0.0]}}')
    const tests = [
      [{ op: 'test', path: '/n', value: 1.0 }, 200],
      [{ op: 'test', path: '/o', value: { b: [1.5, 0], a: 1 } }, 200],
      [{ op: 'test', path: '/o', value: { a: 1 } }, 409],
      [{ op: 'test', path: '/o/b', value: [0, 1.5] }, 409],
      [{ op: 'test', path: '/n', value: '1' }, 409],
      [{ op: 'test', path: '/o', value: [] }, 409]
    ] as const
    for (const [operation, status] of tests) {
      expect((await jsonPatch(app, `/docs/${key}`, [operation])).statusCode).toBe(status)
    }
    const exact = '[{"op":"test","path":"/big","value":12345678901234567891}]'
    expect((await send(app, 'PATCH', `/docs/${key}`, exact, {}, 'application/json-patch+json')).statusCode).toBe(409)
  })

  it('changes the ETag and honours If-Match', async () => {
    const key = uniqueKey()
    const created = await put(app, `/docs/${key}`, { a: 1 })
    const stale = await jsonPatch(app, `/docs/${key}`, [{ op: 'add', path: '/b', value: 2 }], { 'if-match': '"1"' })
    expect(stale.statusCode).toBe(412)
    const fresh = await jsonPatch(app, `/docs/${key}`, [{ op: 'add', path: '/b', value: 2 }], { 'if-match': created.headers.etag as string })
    expect(fresh.statusCode).toBe(200)
    expect(fresh.headers.etag).not.toBe(created.headers.etag)
  })

  it('is 404 for a missing document or base location, and 400 for a malformed patch', async () => {
    expect((await jsonPatch(app, `/docs/${uniqueKey()}`, [])).statusCode).toBe(404)
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    expect((await jsonPatch(app, `/docs/${key}/nope`, [])).statusCode).toBe(404)
    for (const patch of [[{ op: 'add', path: 'no-slash', value: 1 }], [{ op: 'jump', path: '/a' }], { op: 'add' }]) {
      const response = await send(app, 'PATCH', `/docs/${key}`, JSON.stringify(patch), {}, 'application/json-patch+json')
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_VALIDATION' })
    }
  })
})

describe('repeated member names (RFC 6902 section 4)', () => {
  it.each([
    '[{"op":"add","path":"/a","value":1,"op":"remove"}]',
    '[{"op":"replace","path":"/a","path":"/b","value":1}]',
    '[{"op":"add","path":"/a","value":{"x":1,"x":2}}]'
  ])('refuses %s with 400 and changes nothing', async (patch) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 0, b: 0 })
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await send(app, 'PATCH', `/docs/${key}`, patch, {}, 'application/json-patch+json')
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_INVALID_JSON' })
    expect(response.json().detail).toContain('twice')
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })
})

describe('members an operation does not define (RFC 6902 section 4)', () => {
  it.each([
    [{ op: 'remove', path: '/a', from: 'not a pointer' }, { b: 2 }],
    [{ op: 'add', path: '/c', value: 3, from: '~2' }, { a: 1, b: 2, c: 3 }],
    [{ op: 'test', path: '/a', value: 1, from: 'x', extra: true }, { a: 1, b: 2 }]
  ])('are ignored: %j', async (operation, expected) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1, b: 2 })
    const response = await jsonPatch(app, `/docs/${key}`, [operation])
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(expected)
  })
})

describe('patches that move many array elements', () => {
  it('stop at the work limit and write nothing: 1000 adds at the front of half a million elements', async () => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, `[${Array(500_000).fill(0).join(',')}]`)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    for (const operation of ['{"op":"add","path":"/0","value":1}', '{"op":"remove","path":"/0"}']) {
      const response = await send(app, 'PATCH', `/docs/${key}`, `[${Array(1000).fill(operation).join(',')}]`, {}, 'application/json-patch+json')
      expect(response.statusCode).toBe(422)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_WORK_BYTES' })
    }
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })
})

describe('a JSON Patch nesting a document past what the scripts read', () => {
  // Found by the abuse suite (fast-check seed 1954704892): 400 copies of the document into itself answered 500.
  it('is refused with 422 naming MAX_DEPTH, and writes nothing', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const before = (await get(app, `/docs/${key}`)).headers.etag
    const refused = await jsonPatch(app, `/docs/${key}`, Array.from({ length: 400 }, () => ({ op: 'copy', path: '/b', from: '' })))
    expect(refused.statusCode).toBe(422)
    expect(refused.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_DEPTH' })
    const after = await get(app, `/docs/${key}`)
    expect(after.json()).toEqual({ a: 1 })
    expect(after.headers.etag).toBe(before)
  })
})
