import { describe, expect, it } from 'vitest'
import { linearRegExp } from '../../src/schemas/linear-regexp.js'
import { createDocumentAjv } from '../../src/schemas/validator.js'

describe('the documents\' ajv', () => {
  it('runs every schema pattern on the linear-time engine, never on V8\'s backtracking one', () => {
    const ajv = createDocumentAjv()
    expect(ajv.opts.code.regExp).toBe(linearRegExp)
    const compiled = ajv.opts.code.regExp('^(a+)+$', 'u')
    expect(compiled).not.toBeInstanceOf(RegExp)
    expect(compiled.test('a'.repeat(100_000) + '!')).toBe(false)
  })

  it('tells patterns apart by their text, as ajv keys them', () => {
    expect(String(linearRegExp('^a$', 'u'))).not.toBe(String(linearRegExp('^b$', 'u')))
    const validate = createDocumentAjv().compile({ type: 'array', prefixItems: [{ pattern: '^a$' }, { pattern: '^b$' }] })
    expect([validate(['a', 'b']), validate(['a', 'a'])]).toEqual([true, false])
  })

  it('checks the url format on the linear-time engine', () => {
    const validate = createDocumentAjv().compile({ type: 'string', format: 'url' })
    expect(validate('ftp://172.30.3.56' + '4.1.6.7:155'.repeat(30_000) + '\u0000')).toBe(false)
    expect(validate('https://example.com/path')).toBe(true)
  })
})
