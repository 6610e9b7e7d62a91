import { describe, expect, it } from 'vitest'
import { parseJson } from '../../console/src/json-text.js'
import { listOf } from '../../console/src/query.js'

describe('the editor\'s JSON check', () => {
  it.each([
    ['{"a": 1}', { value: { a: 1 } }],
    ['[1, 2.5, "x", null, true]', { value: [1, 2.5, 'x', null, true] }],
    ['"just a string"', { value: 'just a string' }]
  ])('takes %s', (text, parsed) => {
    expect(parseJson(text)).toEqual(parsed)
  })

  it.each([
    ['{"a": 1,,}', 1, 9],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3],
    ['[1, 2', 1, 6]
  ])('says where %j goes wrong', (text, line, column) => {
    const parsed = parseJson(text)
    expect(parsed).toHaveProperty('error')
    expect((parsed as { error: string }).error).toContain(`line ${line} column ${column}`)
  })
})

describe('the query\'s field list', () => {
  it.each([
    [['/title', '/total'], '/title,/total'],
    [['/a,b', '/c\\d'], '/a\\,b,/c\\\\d'],
    [['/é'], '/é']
  ])('joins %j as %s', (pointers, list) => {
    expect(listOf(pointers)).toBe(list)
  })
})
