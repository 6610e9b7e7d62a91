import { describe, expect, it } from 'vitest'
import { indexFieldsOf } from '../../../src/collections/indexes/definition.js'
import { compileFilter } from '../../../src/collections/indexes/filter.js'
import { checkPercentEncoding, listOf, MAX_SHORT_CONDITIONS, shortQueryOf, type ShortQueryString } from '../../../src/collections/indexes/short-query.js'

const fields = indexFieldsOf({
  fields: [{ pointer: '/s', type: 'tag' }, { pointer: '/n', type: 'number' }, { pointer: '/t', type: 'text' }, { pointer: '/b', type: 'boolean' },
    { pointer: '/a~1b', type: 'tag' }]
})

const filterOf = (query: ShortQueryString) => shortQueryOf(query).filterOf(fields)

describe('the short form reads conditions into the filter a POST body would say', () => {
  it('takes each value as its field\'s type, never by its looks', () => {
    const cases: Array<[ShortQueryString, unknown]> = [
      [{ '/s': ['open'] }, { '/s': 'open' }],
      [{ '/s': ['10'] }, { '/s': '10' }],
      [{ '/s': ['true'] }, { '/s': 'true' }],
      [{ '/s': [''] }, { '/s': '' }],
      [{ '/n': ['10'] }, { '/n': 10 }],
      [{ '/n': ['-0.5e-3'] }, { '/n': -0.0005 }],
      [{ '/n': ['gte:10', 'lt:20.5'] }, { '/n': { $gte: 10, $lt: 20.5 } }],
      [{ '/b': ['false'] }, { '/b': false }],
      [{ '/t': ['text:red shoes'] }, { '/t': { $text: 'red shoes' } }],
      [{ '/s': ['exists:true'], '/n': ['exists:false'] }, { '/s': { $exists: true }, '/n': { $exists: false } }],
      [{ '/s': ['in:open,paid'] }, { '/s': { $in: ['open', 'paid'] } }],
      [{ '/n': ['nin:1,2.5'] }, { '/n': { $nin: [1, 2.5] } }],
      [{ '/s': ['prefix:ab'] }, { '/s': { $prefix: 'ab' } }],
      [{ '/s': ['eq:gte:10'] }, { '/s': 'gte:10' }],
      [{ '/s': ['eq:'] }, { '/s': '' }],
      [{ '/s': ['12:30'] }, { '/s': '12:30' }],
      [{ '/s': ['a', 'b'], '/n': ['ne:1', 'ne:2'] }, { '/s': 'a', '/n': { $ne: 1 }, $and: [{ '/s': 'b' }, { '/n': { $ne: 2 } }] }],
      [{ '/a~1b': ['x'] }, { '/a~1b': 'x' }],
      [{ '/unknown': ['7'] }, { '/unknown': '7' }],
      [{ sort: '-/n', limit: 5 }, {}]
    ]
    for (const [query, filter] of cases) expect(filterOf(query), JSON.stringify(query)).toEqual(filter)
  })

  it('splits lists at commas, `\\,` and `\\\\` escaping', () => {
    expect(listOf('a,b', 'p')).toEqual(['a', 'b'])
    expect(listOf('a\\,b,c\\\\', 'p')).toEqual(['a,b', 'c\\'])
    expect(listOf('', 'p')).toEqual([''])
    expect(listOf(',', 'p')).toEqual(['', ''])
    expect(() => listOf('a\\b', 'p')).toThrow(/Query parameter "p": in a list, a backslash/)
    expect(filterOf({ '/s': ['in:a\\,b,\\\\'] })).toEqual({ '/s': { $in: ['a,b', '\\'] } })
    expect(shortQueryOf({ fields: '/title,/a\\,b' }).fields).toEqual(['/title', '/a,b'])
  })

  it('reads sort, limit and cursor as the POST body says them', () => {
    const { sort, limit, cursor, fields: pointers } = shortQueryOf({ sort: '-/n', limit: 3, cursor: 'c' })
    expect({ sort, limit, cursor, pointers }).toEqual({ sort: [{ pointer: '/n', order: 'desc' }], limit: 3, cursor: 'c', pointers: undefined })
    expect(shortQueryOf({ sort: '/n' }).sort).toEqual([{ pointer: '/n', order: 'asc' }])
  })
})

describe('the short form refuses, naming the parameter', () => {
  it('values its field\'s type does not take, unknown operators, parameters and POST-only members', () => {
    const cases: Array<[ShortQueryString, RegExp]> = [
      [{ '/n': ['ten'] }, /Query parameter "\/n": "ten" is not a number/],
      [{ '/n': ['0x10'] }, /"\/n": "0x10" is not a number/],
      [{ '/n': ['1e999'] }, /"\/n": "1e999" is not a number/],
      [{ '/n': [''] }, /"\/n": "" is not a number/],
      [{ '/n': ['in:1,x'] }, /"\/n": "x" is not a number/],
      [{ '/b': ['yes'] }, /"\/b": "yes" is not true or false/],
      [{ '/s': ['exists:1'] }, /"\/s": "1" is not true or false/],
      [{ '/s': ['like:x'] }, /"\/s": "like:" is not an operator .* write eq:like:x/],
      [{ '/s': ['http://x'] }, /write eq:http:\/\/x/],
      [{ $or: '[]' }, /Query parameter "\$or": \$or, \$not and filters in JSON take POST/],
      [{ not: 'x' }, /take POST/],
      [{ limt: '5' }, /Query parameter "limt": is neither sort, fields, limit, cursor nor a pointer/],
      [{ sort: 'n' }, /Query parameter "sort": takes a pointer/],
      [{ '/s': Array.from({ length: MAX_SHORT_CONDITIONS + 1 }, () => 'a') }, /at most 100 conditions/]
    ]
    for (const [query, detail] of cases) {
      expect(() => filterOf(query), JSON.stringify(query)).toThrow(detail)
    }
  })

  it('words the compiler\'s places as the parameters they came from', () => {
    const compiled = (query: ShortQueryString) => {
      const short = shortQueryOf(query)
      return compileFilter(short.filterOf(fields), fields, short.placeName)
    }
    expect(() => compiled({ '/price': ['1'] })).toThrow(/^Query parameter "\/price": "\/price" is not a field/)
    expect(() => compiled({ '/s': ['gt:1'] })).toThrow(/^Query parameter "\/s" \(gt:\): a tag field takes/)
    expect(() => compiled({ '/s': ['prefix:a'] })).toThrow(/^Query parameter "\/s" \(prefix:\): takes a prefix of at least 2/)
    expect(() => compiled({ '/s': ['a', 'in:' + Array(101).fill('x').join(',')] })).toThrow(/^Query parameter "\/s" \(in:\): takes a list of 1 to 100/)
    expect(() => compiled({ '/s': ['a', 'prefix:ab', 'prefix:a'] })).toThrow(/^Query parameter "\/s" \(prefix:\): takes a prefix/)
    expect(() => compiled({ '/t': ['x'] })).toThrow(/^Query parameter "\/t" \(eq:\): a text field takes \$text/)
    expect(() => compiled({ '/a~1b': ['a\u001fb'] })).toThrow(/^Query parameter "\/a~1b" \(eq:\): takes no string holding U\+001F/)
  })
})

describe('percent-encoding', () => {
  it('takes UTF-8 percent-encoding and refuses the rest, naming the parameter', () => {
    for (const search of ['', '/s=%E6%97%A5&limit=2', '/s=a+b', '%2Fs=%25', '/s', 'a=&b']) expect(() => checkPercentEncoding(search), search).not.toThrow()
    expect(() => checkPercentEncoding('/s=%ZZ')).toThrow(/Query parameter "\/s": bad percent-encoding/)
    expect(() => checkPercentEncoding('limit=1&%2Fs=%E0%A4%A')).toThrow(/Query parameter "\/s": bad percent-encoding/)
    expect(() => checkPercentEncoding('/s=%FF')).toThrow(/"\/s": bad percent-encoding/)
    expect(() => checkPercentEncoding('%ZZ=1')).toThrow(/Query parameter "%ZZ": bad percent-encoding/)
  })
})
