import { describe, expect, it } from 'vitest'
import { RawJson } from '../../src/documents/raw-json.js'
import { firstRepeatedMember } from '../../src/documents/json-text.js'

describe('RawJson', () => {
  it.each([
    ['{"a":1,"b":[1, 2.50 ,{"c":"]}"}],"d":"x\\"y"}', 'b', '[1, 2.50 ,{"c":"]}"}]'],
    ['{ "a" : 12345678901234567890 , "z" : true }', 'a', '12345678901234567890'],
    ['{"a\\u0062":{"":null},"ab":2}', 'ab', '{"":null}'],
    ['{"x":"\\\\","y":-1e5}', 'y', '-1e5'],
    ['{"x":{}}', 'missing', undefined]
  ])('in %s, %s is %s as written', (text, name, slice) => {
    const raw = new RawJson(text)
    expect(raw.memberText(raw.root, name)).toBe(slice)
  })

  it('lists array elements as written, whitespace around them left out', () => {
    const raw = new RawJson(' [ 1.0 , "a,b" , [ ] , {"k":[1]} , null ] ')
    expect(raw.items(raw.root).map((item) => raw.slice(item))).toEqual(['1.0', '"a,b"', '[ ]', '{"k":[1]}', 'null'])
    expect(raw.items(new RawJson('[]').root)).toEqual([])
    expect(raw.items(new RawJson('"text"').root)).toEqual([])
  })
})

describe('firstRepeatedMember', () => {
  it.each([
    ['{"a":1,"a":2}', [], 'a'],
    ['[0,{"x":{"y":1,"y":2}}]', ['1', 'x'], 'y'],
    ['{"s":"{\\"a\\":1,\\"a\\":1}","t":{"k":[{"a":1},{"a":1,"a":1}]}}', ['t', 'k', '1'], 'a'],
    ['{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}', undefined, undefined]
  ])('in %s finds %j %j', (text, at, name) => {
    expect(firstRepeatedMember(text)).toEqual(at === undefined ? undefined : { at, name })
  })
})
