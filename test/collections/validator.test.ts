import { describe, expect, it } from 'vitest'
import { createSchemaPatterns, MAX_SCHEMA_INSTRUCTIONS, MAX_SCHEMA_PROPERTIES } from '../../src/collections/linear-regexp.js'
import { createDocumentAjv } from '../../src/collections/validator.js'

describe('the documents\' ajv', () => {
  it('runs every schema pattern on the linear-time engine, never on V8\'s backtracking one', () => {
    const patterns = createSchemaPatterns()
    const ajv = createDocumentAjv(patterns)
    expect(ajv.opts.code.regExp).toBe(patterns.engine)
    const compiled = ajv.opts.code.regExp('^(a+)+$', 'u')
    expect(compiled).not.toBeInstanceOf(RegExp)
    expect(compiled).toHaveProperty('size', expect.any(Number))
    expect(compiled.test('a'.repeat(100_000) + '!')).toBe(false)
  })

  it('tells patterns apart by their text, as ajv keys them, and compiles each once', () => {
    const { engine } = createSchemaPatterns()
    expect(String(engine('^a$', 'u'))).not.toBe(String(engine('^b$', 'u')))
    expect(engine('^a$', 'u')).toBe(engine('^a$', 'u'))
    const validate = createDocumentAjv().compile({ type: 'array', prefixItems: [{ pattern: '^a$' }, { pattern: '^b$' }] })
    expect([validate(['a', 'b']), validate(['a', 'a'])]).toEqual([true, false])
  })

  it(`holds a schema's patterns to ${MAX_SCHEMA_INSTRUCTIONS} instructions together, each distinct pattern counted once`, () => {
    const patterns = createSchemaPatterns()
    for (let count = 0; count < 12; count++) expect(patterns.problemOf(`^[a-z]{0,${980 + count}}$`)).toBeUndefined()
    expect(patterns.problemOf('^[a-z]{0,980}$')).toBeUndefined()
    expect(patterns.problemOf('^[a-z]{0,999}$')).toMatch(/past the 25000 instructions they may compile to together/)
    expect(patterns.problemOf('(a)\\1')).toMatch(/backreference/)
  })

  it(`holds a schema to ${MAX_SCHEMA_PROPERTIES} distinct Unicode properties, which V8 is asked for`, () => {
    const patterns = createSchemaPatterns()
    const scripts = ['Latin', 'Greek', 'Cyrillic', 'Arabic', 'Hebrew', 'Han', 'Hiragana', 'Katakana', 'Thai', 'Hangul',
      'Devanagari', 'Bengali', 'Tamil', 'Georgian', 'Armenian', 'Ethiopic', 'Khmer']
    for (const script of scripts.slice(0, 16)) expect(patterns.problemOf(`^\\p{Script=${script}}+$`)).toBeUndefined()
    expect(patterns.problemOf('^\\P{Script=Latin}\\p{Script=Greek}$')).toBeUndefined()
    expect(patterns.problemOf('^\\p{Script=Khmer}$')).toMatch(/past the 16 distinct ones a schema may use/)
  })

  it('checks the url format on the linear-time engine', () => {
    const validate = createDocumentAjv().compile({ type: 'string', format: 'url' })
    expect(validate('ftp://172.30.3.56' + '4.1.6.7:155'.repeat(30_000) + '\u0000')).toBe(false)
    expect(validate('https://example.com/path')).toBe(true)
  })
})

describe('uniqueItems', () => {
  const validate = () => createDocumentAjv().compile({ type: 'array', uniqueItems: true })

  it('finds duplicates as JSON Schema defines them: members in any order, numbers by value', () => {
    const check = validate()
    expect(check([{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }])).toBe(false)
    expect(check([1, 1.0])).toBe(false)
    expect(check([[1, 2], [2, 1], '1', 1, null, 'null', { a: null }, { a: 'null' }, true, 'true'])).toBe(true)
  })

  it('reports the same error as ajv: the last item repeating an earlier one', () => {
    const check = validate()
    expect(check([{ x: 1 }, 'a', { x: 1 }, 'a', 3])).toBe(false)
    expect(check.errors).toEqual([expect.objectContaining({
      keyword: 'uniqueItems', instancePath: '', params: { i: 3, j: 1 }, message: 'must NOT have duplicate items (items ## 1 and 3 are identical)'
    })])
  })

  it('checks 40,000 distinct objects at once (ajv compared every pair: 279 s)', () => {
    const items = Array.from({ length: 40_000 }, (_, index) => ({ a: index, b: 'x' }))
    expect(validate()(items)).toBe(true)
    expect(validate()([...items, { b: 'x', a: 0 }])).toBe(false)
  })
})
