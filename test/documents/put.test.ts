import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, send, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()
const redis = await connectRedis()

describe('PUT /docs/{key} stores any JSON value', () => {
  it.each([
    ['object', '{"a":1}'],
    ['array', '[1,"two",null]'],
    ['empty string', '""'],
    ['string', '"text"'],
    ['number', '42'],
    ['true', 'true'],
    ['false', 'false'],
    ['null', 'null'],
    ['empty object', '{}'],
    ['empty array', '[]']
  ])('%s: 201 with Location on create, 200 on replace, read back exactly', async (_name, text) => {
    const key = uniqueKey()
    const created = await send(app, 'PUT', `/docs/${key}`, text)
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe(`/docs/${key}`)
    expect(created.headers.etag).toMatch(/^"\d+"$/)
    expect(created.body).toBe(text)
    const replaced = await send(app, 'PUT', `/docs/${key}`, text)
    expect(replaced.statusCode).toBe(200)
    expect(replaced.headers.location).toBeUndefined()
    expect((await get(app, `/docs/${key}`)).body).toBe(text)
  })

  it('percent-encodes nothing away: the Location of a key with reserved characters still reads it', async () => {
    const key = `user:${uniqueKey()}/é ?#`
    const created = await put(app, `/docs/${encodeURIComponent(key)}`, { ok: true })
    expect(created.statusCode).toBe(201)
    expect((await get(app, created.headers.location as string)).json()).toEqual({ ok: true })
    expect(await redis.sendCommand(['EXISTS', app.keyPrefix + key])).toBe(1)
  })
})

describe('fidelity: what a client writes is what it reads back', () => {
  it.each([
    ['integers beyond 2^53', '[12345678901234567890,9007199254740993,-9223372036854775808,18446744073709551615]'],
    ['decimals', '[0.1,3.141592653589793,1.7976931348623157e308,5e-324]'],
    ['string escapes', '["quote \\" backslash \\\\ slash / newline \\n tab \\t nul \\u0000 bell \\u0007"]'],
    ['unicode', '["été","😀","中文","\\u2028\\u2029"]'],
    ['member names', '{"":1,"a.b":2,"$":3,"\\"":4,"__proto__":5,"constructor":{"prototype":6}}'],
    ['nesting', '{"a":[{"b":[[{"c":null}]]}]}']
  ])('%s', async (_name, text) => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, text)
    expect(JSON.parse((await get(app, `/docs/${key}`)).body)).toEqual(JSON.parse(text))
    const stored = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    expect((await get(app, `/docs/${key}`)).body).toBe(stored)
  })

  it('keeps every digit of integers RedisJSON holds exactly', async () => {
    const key = uniqueKey()
    await send(app, 'PUT', `/docs/${key}`, '{"id":12345678901234567890,"n":-9223372036854775808}')
    expect((await get(app, `/docs/${key}/id`)).body).toBe('12345678901234567890')
    expect((await get(app, `/docs/${key}/n`)).body).toBe('-9223372036854775808')
  })

  it('passes through whatever RedisJSON serialises, without re-shaping', async () => {
    const key = uniqueKey()
    const response = await send(app, 'PUT', `/docs/${key}`, ' { "spaced" : [ 1 , 2 ] , "f": 1.0 } ')
    expect(response.body).toBe('{"spaced":[1,2],"f":1.0}')
  })
})

describe('PUT /docs/{key}/{pointer} sets one location', () => {
  it('replaces a member (200) and adds a new one (201 with Location)', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: { b: 1 } })
    const replaced = await put(app, `/docs/${key}/a/b`, [2])
    expect(replaced.statusCode).toBe(200)
    expect(replaced.json()).toEqual([2])
    const added = await put(app, `/docs/${key}/a/c`, 'new')
    expect(added.statusCode).toBe(201)
    expect(added.headers.location).toBe(`/docs/${key}/a/c`)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ a: { b: [2], c: 'new' } })
  })

  it('replaces array elements and treats digits on objects as member names', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { list: [0, 1, 2], map: {} })
    expect((await put(app, `/docs/${key}/list/1`, 'one')).statusCode).toBe(200)
    expect((await put(app, `/docs/${key}/map/1`, 'member one')).statusCode).toBe(201)
    expect((await get(app, `/docs/${key}`)).json()).toEqual({ list: [0, 'one', 2], map: { 1: 'member one' } })
  })

  it.each([
    ['a missing document', null, '/x'],
    ['a missing parent', { a: {} }, '/b/c'],
    ['an array index out of range', { list: [1] }, '/list/1'],
    ['the append position "-"', { list: [1] }, '/list/-'],
    ['a non-canonical index', { list: [1, 2] }, '/list/01'],
    ['a member of an array', { list: [1] }, '/list/x'],
    ['inside a scalar', { s: 'text' }, '/s/x'],
    ['an index that overflows 64 bits', { list: [1] }, `/list/${'9'.repeat(30)}`]
  ])('is 404 for %s, and writes nothing', async (_case, document, pointer) => {
    const key = uniqueKey()
    if (document) await put(app, `/docs/${key}`, document)
    const before = await redis.sendCommand(['JSON.GET', app.keyPrefix + key])
    const response = await put(app, `/docs/${key}${pointer}`, { written: true })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_NOT_FOUND' })
    expect(await redis.sendCommand(['JSON.GET', app.keyPrefix + key])).toBe(before)
  })
})

describe('Prefer: return=minimal', () => {
  it('answers a write without the stored value', async () => {
    const key = uniqueKey()
    const response = await put(app, `/docs/${key}`, { big: 'x'.repeat(100) }, { prefer: 'return=minimal' })
    expect(response.statusCode).toBe(201)
    expect(response.body).toBe('')
    expect(response.headers['preference-applied']).toBe('return=minimal')
    expect(response.headers.etag).toMatch(/^"\d+"$/)
  })
})

describe('repeated member names', () => {
  it('are refused in documents, since what is read back could not be what was sent', async () => {
    const key = uniqueKey()
    const response = await send(app, 'PUT', `/docs/${key}`, '{"a":1,"b":{"c":1,"c":2}}')
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'DOCS_ERR_INVALID_JSON', detail: 'The object at "/b" has the member name "c" twice' })
    expect((await get(app, `/docs/${key}`)).statusCode).toBe(404)
  })

  it('are refused in the service\'s own bodies: a batch item with two keys writes nothing', async () => {
    const [first, second] = [uniqueKey(), uniqueKey()]
    const response = await send(app, 'POST', '/batch/write', `{"items":[{"key":"${first}","value":1,"key":"${second}"}]}`)
    expect(response.statusCode).toBe(400)
    expect((await get(app, `/docs/${first}`)).statusCode).toBe(404)
    expect((await get(app, `/docs/${second}`)).statusCode).toBe(404)
  })
})
