import { fullFormats } from 'ajv-formats/dist/formats.js'
import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, remove, send, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()

function register (collection: string, schema: unknown, headers: Record<string, string> = {}) {
  return send(app, 'PUT', `/schemas/${collection}`, JSON.stringify(schema), headers, 'application/schema+json')
}

/** A fresh collection with the schema registered. */
async function collectionWith (schema: unknown): Promise<string> {
  const collection = uniqueKey('patterns')
  const registered = await register(collection, schema)
  expect(registered.statusCode).toBe(201)
  return collection
}

const stringWith = (pattern: string) => ({ type: 'object', properties: { v: { type: 'string', pattern } } })

describe('a schema pattern on a hostile string', () => {
  it('answers the issue\'s ^(a+)+$ at once, with the violation (V8 took 6 s for 29 characters)', async () => {
    const collection = await collectionWith(stringWith('^(a+)+$'))
    for (const hostile of ['a'.repeat(29) + '!', 'a'.repeat(500_000) + '!']) {
      const response = await put(app, `/docs/${collection}:1`, { v: hostile })
      expect(response.statusCode).toBe(422)
      expect(response.json().errors).toEqual([expect.objectContaining({ in: 'document', pointer: '/v', keyword: 'pattern' })])
    }
    expect((await put(app, `/docs/${collection}:1`, { v: 'a'.repeat(500_000) })).statusCode).toBe(201)
  })

  it('runs patternProperties, additionalProperties and propertyNames patterns on hostile member names as promptly', async () => {
    const collection = await collectionWith({
      type: 'object',
      patternProperties: { '^(a|aa)+$': { type: 'integer' } },
      additionalProperties: { type: 'string' },
      propertyNames: { pattern: '^(\\w+\\s?)*$' }
    })
    const url = `/docs/${collection}:1`
    const hostileName = 'a'.repeat(100_000) + '!'
    const refused = await put(app, url, { [hostileName]: 'x' })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().errors).toContainEqual(expect.objectContaining({ pointer: '', keyword: 'pattern' }))
    const mistyped = await put(app, url, { ['a'.repeat(100_000)]: 'x', [`${'a'.repeat(100_000)}b`]: 1 })
    expect(mistyped.statusCode).toBe(422)
    expect(mistyped.json().errors.map((error: { keyword: string }) => error.keyword).sort()).toEqual(['type', 'type'])
    expect((await put(app, url, { ['a'.repeat(100_000)]: 1, other: 'x' })).statusCode).toBe(201)
  })

  it('checks a document of 1 MiB of hostile strings against a pattern-heavy schema, listing what breaks it', async () => {
    const collection = await collectionWith({
      type: 'object',
      properties: {
        words: { type: 'array', items: { type: 'string', pattern: '^(\\w+\\s?)*$' } },
        codes: { type: 'array', items: { type: 'string', pattern: '^([a-z0-9]+[-.]?)+[a-z]$', maxLength: 1_000_000 } }
      }
    })
    const words = Array.from({ length: 100 }, () => 'word '.repeat(1000) + '!')
    const codes = Array.from({ length: 100 }, () => 'a1-'.repeat(1600) + '-')
    const document = JSON.stringify({ words, codes })
    expect(document.length).toBeGreaterThan(900_000)
    const response = await send(app, 'PUT', `/docs/${collection}:1`, document)
    expect(response.statusCode).toBe(422)
    const { errors } = response.json()
    expect(errors).toHaveLength(50)
    expect(errors[0]).toMatchObject({ pointer: '/words/0', keyword: 'pattern' })
  })
})

/** Long strings for each format, built the way that makes a backtracking engine slowest. */
const hostileFormats: Record<string, string> = {
  url: 'ftp://172.30.3.56' + '4.1.6.7:155'.repeat(27_000) + '\u0000',
  'uri-reference': '/0.' + '0.'.repeat(12_000) + '2.'.repeat(12_000) + '\u0000',
  uri: 'A:/3.' + '0.'.repeat(24_000) + '\u0000',
  duration: 'PT0' + '0'.repeat(48_000) + '\u0000',
  email: 'a'.repeat(24_000) + '@' + 'a.'.repeat(12_000) + '!',
  hostname: 'a' + '.a'.repeat(24_000) + '!',
  'json-pointer': '/'.repeat(48_000) + '~',
  'uri-template': '{' + 'a,'.repeat(24_000) + '\u0000',
  ipv6: '1:'.repeat(24_000) + '!',
  'date-time': '2020-01-01T' + '0'.repeat(48_000),
  regex: '('.repeat(48_000),
  uuid: 'a'.repeat(48_000)
}

describe('a format on a hostile string', () => {
  it('answers every format ajv-formats has at once, url included (quadratic in V8: 40 s for this url)', async () => {
    const formats = Object.keys(hostileFormats)
    const collection = await collectionWith({
      type: 'object',
      properties: Object.fromEntries(formats.map((format) => [format, { type: 'string', format }]))
    })
    const response = await put(app, `/docs/${collection}:1`, hostileFormats)
    expect(response.statusCode).toBe(422)
    const failing = response.json().errors.map((error: { pointer: string, keyword: string }) => `${error.keyword} ${error.pointer}`)
    expect(failing.sort()).toEqual(formats.map((format) => `format /${format.replace('/', '~1')}`).sort())
  })
})

describe('a pattern the linear-time engine cannot run', () => {
  it.each([
    ['a backreference', { properties: { code: { type: 'string', pattern: '^(\\w)\\1$' } } }, '/properties/code/pattern', /backreference/],
    ['a lookahead in a list of schemas', { allOf: [{ items: { pattern: '^(?=.*\\d).{8,}$' } }] }, '/allOf/0/items/pattern', /lookahead/],
    ['a lookbehind in a patternProperties name', { patternProperties: { '(?<=a/b~)c': {} } }, '/patternProperties/(?<=a~1b~0)c', /lookbehind/],
    ['a propertyNames pattern', { propertyNames: { pattern: '^(?!x)' } }, '/propertyNames/pattern', /lookahead/],
    ['a definition reached by $ref', { $defs: { id: { pattern: '(a)\\1' } }, $ref: '#/$defs/id' }, '/$defs/id/pattern', /backreference/],
    ['a repetition over 1000', { pattern: '^.{0,5000}$' }, '/pattern', /minLength and maxLength/],
    ['a pattern only V8 without the u flag reads', { pattern: '\\-' }, '/pattern', /not an ECMAScript regular expression \(u flag\)/]
  ])('is refused at registration with 400 and a pointer to it: %s', async (_label, schema, pointer, reason) => {
    const collection = uniqueKey('refused')
    const response = await register(collection, schema)
    expect(response.statusCode).toBe(400)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
    const problem = response.json()
    expect(problem).toMatchObject({ code: 'DOCS_ERR_INVALID_SCHEMA', status: 400 })
    expect(problem.errors).toEqual([expect.objectContaining({ in: 'body', pointer, detail: expect.stringMatching(reason) })])
    expect((await get(app, `/schemas/${collection}`)).statusCode).toBe(404)
  })

  it('is any pattern past the instructions a schema\'s patterns may compile to together; repeating one costs nothing', async () => {
    const large = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) =>
      [`p${index}`, { type: 'string', pattern: `^[a-z]{0,${980 + index}}$` }]))
    const refused = await register(uniqueKey('budget'), { properties: large(14) })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/properties/p12/pattern', '/properties/p13/pattern'])
    expect(refused.json().errors[0].detail).toMatch(/past the 25000 instructions they may compile to together/)
    const repeated = Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`p${index}`, { pattern: '^[a-z]{0,980}$' }]))
    expect((await register(uniqueKey('budget'), { properties: { ...large(12), ...repeated } })).statusCode).toBe(201)
  })

  it('is listed wherever it is, every one, and the schema replaces nothing', async () => {
    const collection = await collectionWith(stringWith('^a+$'))
    const response = await register(collection, {
      properties: { a: { pattern: '(?=a)' }, b: { prefixItems: [{ pattern: 'ok' }], patternProperties: { '(.)\\1': true } } }
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors.map((error: { pointer: string }) => error.pointer)).toEqual([
      '/properties/a/pattern', '/properties/b/patternProperties/(.)\\1'
    ])
    expect((await get(app, `/schemas/${collection}`)).json()).toEqual(stringWith('^a+$'))
  })
})

/** Patterns users write, and texts each must answer as V8 answered them before (V8 is the oracle). */
const ordinaryPatterns: Array<[string, string[]]> = [
  ['^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', ['ann@example.com', 'ann@example', 'ann @example.com', 'zoë@exämple.org']],
  ['^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$', ['ann.lee+tag@mail.example.co', 'ann@x.c', 'ann@@x.com']],
  ['^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$', ['2024-02-29', '2024-13-01', '2024-1-01', '٢٠٢٤-٠١-٠١']],
  ['^\\p{Lu}\\p{Ll}+(?: \\p{L}+)*$', ['José Ñúñez', 'Zoë', 'Ωμέγα Δ', 'john', 'R2D2']],
  ['^[\\p{L}\\p{M}\\s\'-]{1,100}$', ['Mary-Jane O\'Neil', '李小龙', 'नमस्ते', 'x1']],
  ['^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$', ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-62d3-a456-426614174000']],
  ['^\\+?[1-9]\\d{1,14}$', ['+4915112345678', '0049151', '+1 555']],
  ['^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[\\da-z-]+(?:\\.[\\da-z-]+)*)?$', ['1.2.3', '1.2.3-rc.1', '01.2.3']],
  ['^https?://', ['https://example.com', 'ftp://example.com']],
  ['^\\S+$', ['no-spaces', 'a\u00a0b', 'a\tb']],
  ['^.+$', ['line', 'two\nlines', 'carriage\rreturn']],
  ['colou?r', ['the color red', 'the colour red', 'the colr red']]
]

describe('an ordinary pattern', () => {
  it.each(ordinaryPatterns)('answers as before: %s', async (pattern, texts) => {
    const collection = await collectionWith(stringWith(pattern))
    for (const [index, text] of texts.entries()) {
      const response = await put(app, `/docs/${collection}:${index}`, { v: text })
      expect([text, response.statusCode]).toEqual([text, new RegExp(pattern, 'u').test(text) ? 201 : 422])
    }
  })

  it('answers as before in patternProperties', async () => {
    const collection = await collectionWith({
      type: 'object', patternProperties: { '^x-': { type: 'string' }, '^\\p{Lu}': { type: 'integer' } }, additionalProperties: false
    })
    expect((await put(app, `/docs/${collection}:1`, { 'x-trace': 'a', Émile: 1 })).statusCode).toBe(201)
    const refused = await put(app, `/docs/${collection}:2`, { 'x-trace': 1, émile: 1 })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().errors.map((error: { keyword: string }) => error.keyword).sort()).toEqual(['additionalProperties', 'type'])
  })

  it('leaves formats answering as ajv-formats does', async () => {
    const samples: Record<string, string[]> = {
      email: ['ann@example.com', 'ann@'], date: ['2024-02-29', '2023-02-29'], 'date-time': ['2024-01-01T10:00:00Z', '2024-01-01'],
      uri: ['https://example.com/a?b#c', 'example.com'], url: ['http://例子.测试/x', 'http://10.0.0.1/'],
      hostname: ['example.com', '-bad.com'], ipv4: ['192.168.0.1', '256.1.1.1'], uuid: ['123e4567-e89b-12d3-a456-426614174000', 'x']
    }
    const collection = await collectionWith({
      type: 'object', properties: Object.fromEntries(Object.keys(samples).map((format) => [format, { type: 'string', format }]))
    })
    for (const [format, texts] of Object.entries(samples)) {
      const check = fullFormats[format as keyof typeof fullFormats]
      for (const text of texts) {
        const valid = typeof check === 'function' ? check(text) : check instanceof RegExp ? check.test(text) : (check as { validate: (text: string) => boolean }).validate(text)
        const response = await put(app, `/docs/${collection}:${format}`, { [format]: text })
        expect([format, text, response.statusCode]).toEqual([format, text, valid ? expect.any(Number) : 422])
        if (valid) expect(response.statusCode).toBeLessThan(300)
      }
    }
  })
})

describe('a schema stored before these rules, which they refuse', () => {
  it('is never run: writes to its collection are 400 naming the pattern until it is replaced; reads, deletes and other collections go on', async () => {
    const collection = uniqueKey('stored')
    const text = '{"type":"object","properties":{"code":{"type":"string","pattern":"^(a+)+\\\\1$"}}}'
    const redis = await connectRedis()
    await redis.sendCommand(['HSET', app.schemas.storage.keyOf(collection), 'schema', text, 'revision', '1000'])
    await redis.sendCommand(['SADD', `${app.keyPrefix}\u001fschemas`, collection])
    await redis.sendCommand(['JSON.SET', `${app.keyPrefix}${collection}:old`, '$', '{"code":"a"}'])

    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await put(app, `/docs/${collection}:1`, { code: 'a'.repeat(40) + '!' })
      expect(refused.statusCode).toBe(400)
      const problem = refused.json()
      expect(problem).toMatchObject({ code: 'DOCS_ERR_INVALID_SCHEMA', collection })
      expect(problem.detail).toMatch(/\/properties\/code\/pattern: .*backreference/)
      expect(problem.detail).toContain(`PUT /schemas/${collection}`)
    }
    const batch = await send(app, 'POST', '/batch/write', JSON.stringify({ items: [{ key: `${collection}:2`, value: {} }] }))
    expect(batch.statusCode).toBe(400)
    expect((await get(app, `/docs/${collection}:1`)).statusCode).toBe(404)

    expect((await get(app, `/docs/${collection}:old`)).json()).toEqual({ code: 'a' })
    expect((await get(app, `/schemas/${collection}`)).body).toBe(text)
    expect((await put(app, `/docs/${uniqueKey('elsewhere')}:1`, { code: 'b' })).statusCode).toBe(201)
    expect((await get(app, '/health')).statusCode).toBe(200)
    expect((await remove(app, `/docs/${collection}:old`)).statusCode).toBe(204)

    const replaced = await register(collection, stringWith('^(a+)+$'), { 'if-match': '"1000"' })
    expect(replaced.statusCode).toBe(200)
    expect((await put(app, `/docs/${collection}:1`, { v: 'aaa' })).statusCode).toBe(201)
  })
})
