import { describe, expect, it } from 'vitest'
import { compareBytes, decodeCursor, encodeCursor, numberLiteral, queryDigest, stringLiteral } from '../../../src/collections/indexes/cursor.js'
import { indexFieldsOf } from '../../../src/collections/indexes/definition.js'
import { compileFilter } from '../../../src/collections/indexes/filter.js'

const fields = indexFieldsOf({ fields: [{ pointer: '/s', type: 'tag' }, { pointer: '/n', type: 'number' }, { pointer: '/t', type: 'text' }, { pointer: '/b', type: 'boolean' }] })

describe('the filter compiler', () => {
  it('puts every client value in PARAMS and only index attributes in the query', () => {
    const hostile = '") | @x:{*} -("'
    const { query, params } = compileFilter({ '/s': { $in: [hostile, 'b\\-c'] }, '/n': { $gt: 1e21 }, $or: [{ '/t': { $text: hostile } }, { '/b': true }] }, fields)
    expect(query).toBe('(@f0:{$p0 | $p1}) (@f1:[($p2 +inf]) (((@f2:($p3))) | ((@f3:{true})))')
    expect(params).toEqual(['p0', hostile, 'p1', 'b\\\\-c', 'p2', '1e+21', 'p3', 'x'])
    expect(params.filter((_, index) => index % 2 === 1).some((value) => query.includes(value))).toBe(false)
  })

  it('writes an intersection holding a negation under a union as the negation of a union, which RediSearch 2.10 answers right', () => {
    const compiled = (filter: unknown) => compileFilter(filter, fields).query
    // tag AND (absent OR (NOT a AND NOT b))
    expect(compiled({ '/s': 'x', $or: [{ '/n': { $exists: false } }, { $not: { '/s': 'a' }, '/b': { $ne: true } }] }))
      .toBe('(@f0:{$p0}) (((ismissing(@f1))) | (-(((@f0:{$p1})) | (@f3:{true}))))')
    // A positive part is negated in the union: A AND (B OR (C AND NOT D)).
    expect(compiled({ '/s': 'x', $or: [{ '/n': 1 }, { $and: [{ '/b': true }, { '/s': { $nin: ['y'] } }] }] }))
      .toBe('(@f0:{$p0}) ((((@f1:[$p1 $p1]))) | ((-((-((@f3:{true}))) | (@f0:{$p2})))))')
    // Outside a union, as it is.
    expect(compiled({ '/s': 'x', $not: { '/b': true }, '/n': { $exists: true } })).toBe('(@f0:{$p0}) (-((@f3:{true}))) (-ismissing(@f1))')
  })

  it('trims tag values as RediSearch indexes them', () => {
    expect(compileFilter({ '/s': ' \tspaced \n' }, fields).params).toEqual(['p0', 'spaced'])
  })

  it('knows a filter that only says what documents lack', () => {
    const negative = [{ '/s': { $ne: 'a' } }, { '/s': { $nin: ['a'] } }, { $not: { '/s': 'a' } }, { '/s': { $exists: true } },
      { $or: [{ '/s': 'a' }, { '/n': { $ne: 1 } }] }, { $and: [{ '/s': { $ne: 'a' } }] }]
    for (const filter of negative) expect(() => compileFilter(filter, fields), JSON.stringify(filter)).toThrow(/only says what documents lack/)
    for (const filter of [{}, { '/s': 'a', $not: { '/n': 1 } }, { '/s': { $exists: false } }, { $and: [{ '/s': { $ne: 'a' } }, { '/n': 1 }] }]) {
      expect(() => compileFilter(filter, fields), JSON.stringify(filter)).not.toThrow()
    }
  })

  it('names the tag fields it compares, and a superset of the documents it could match however RediSearch reads their tag values', () => {
    const table: Array<[unknown, string[], string | undefined]> = [
      [{ '/n': 1, '/b': true, '/s': { $exists: true } }, [], undefined],
      [{ '/s': 'a' }, ['/s'], '(@f0:{$p0})'],
      [{ '/s': { $in: ['a', 'b'] }, '/n': { $gte: 1 } }, ['/s'], '(@f0:{$p0 | $p1}) (@f1:[$p2 +inf])'],
      // A tag compared under a negation could leave out a document RediSearch reads in part: that part holds anywhere.
      [{ '/n': 1, '/s': { $ne: 'a' } }, ['/s'], '((@f1:[$p0 $p0]))'],
      [{ '/b': true, $not: { '/s': 'a' } }, ['/s'], '(@f3:{true})'],
      [{ '/s': { $nin: ['a'] }, '/b': true, $or: [{ '/s': 'x' }, { '/n': 2 }] }, ['/s'], '(@f3:{true}) (((@f0:{$p1})) | (((@f1:[$p2 $p2]))))'],
      [{ $or: [{ '/s': 'x' }, { $not: { '/s': { $ne: 'y' } }, '/n': 1 }] }, ['/s'], '(((@f0:{$p0})) | (-(((-@f0:{$p1})) | (-((@f1:[$p2 $p2]))))))'],
      [{ $or: [{ '/s': 'x' }, { $not: { '/s': 'y' }, '/n': 1 }] }, ['/s'], '*']
    ]
    for (const [filter, compared, superset] of table) {
      const compiled = compileFilter(filter, fields)
      expect((compiled.compared ?? []).map((field) => field.pointer), JSON.stringify(filter)).toEqual(compared)
      expect(compiled.superset, JSON.stringify(filter)).toBe(superset)
    }
  })

  it('bounds what one filter may ask', () => {
    expect(() => compileFilter({ $or: Array.from({ length: 101 }, () => ({ '/s': 'a' })) }, fields)).toThrow(/1 to 100/)
    let deep: Record<string, unknown> = { '/s': 'a' }
    for (let level = 0; level < 10; level++) deep = { $and: [deep] }
    expect(() => compileFilter(deep, fields)).toThrow(/deeper than 8/)
    expect(() => compileFilter({ '/s': 'x'.repeat(1025) }, fields)).toThrow(/1024 bytes/)
  })
})

describe('the order of keys and string values', () => {
  it('is byte by byte in UTF-8, as Buffer.compare says, over ASCII, the top of the BMP and past it', () => {
    const pieces = ['', 'a', 'b', 'ab', 'B', '~', '\u007f', 'é', '\u07ff', '\u0800', '日', '\ud7ff', '\ue000', '\uffff', '😀', '\u{10000}', '\u{10ffff}', '𝄞']
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const word = () => Array.from({ length: Math.floor(next() * 4) }, () => pieces[Math.floor(next() * pieces.length)]).join('')
    for (let round = 0; round < 20_000; round++) {
      const [a, b] = [word(), word()]
      expect(Math.sign(compareBytes(a, b)), JSON.stringify([a, b])).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)))
    }
  })
})

describe('literals of the expression language and cursors', () => {
  it('writes numbers in full, reading back as the same double', () => {
    for (const value of [0, -0.5, 1e21, 1.2345678901234567e19, 1e-7, -2.5e-300, 5e-324, 1.7976931348623157e308, 0.1 + 0.2]) {
      const literal = numberLiteral(value)
      expect(literal, String(value)).toMatch(/^-?\d+(\.\d+)?$/)
      expect(Number(literal)).toBe(value)
    }
  })

  it('writes strings with quotes and backslashes as format() of safe pieces', () => {
    expect(stringLiteral('plain text')).toBe('"plain text"')
    expect(stringLiteral('a\\-"b')).toBe(`format("%s%s%s%s", "a", substr("\\b", 0, 1), "-", '"', "b")`.replace('%s%s%s%s', '%s%s%s%s%s'))
  })

  it('binds a cursor to its query', () => {
    const digest = queryDigest('c', { '/s': 'a' }, ['/n', 'asc'])
    const cursor = encodeCursor(digest, { key: 'c:1', value: 2.5 })
    expect(decodeCursor(cursor, digest)).toEqual({ key: 'c:1', value: 2.5 })
    expect(() => decodeCursor(cursor, queryDigest('c', { '/s': 'b' }, ['/n', 'asc']))).toThrow(/not one this query issued/)
    expect(() => decodeCursor('x'.repeat(5000), digest)).toThrow(/not one this query issued/)
    expect(() => decodeCursor(Buffer.from(JSON.stringify([digest, 'k', {}])).toString('base64url'), digest)).toThrow()
  })
})
