import { describe, expect, it } from 'vitest'
import { screenJsonBody } from '../../src/documents/json-body.js'

const screen = (text: string | Buffer, maxDepth = 100) =>
  screenJsonBody(typeof text === 'string' ? Buffer.from(text) : text, maxDepth)

describe('screenJsonBody', () => {
  it.each([
    ['{"a":1}', 1],
    ['[]', 1],
    ['"x"', 0],
    ['12345678901234567890', 0],
    ['[[{"a":[1]}]]', 4],
    [' null ', 0]
  ])('keeps %s exactly as sent, depth %d', (text, depth) => {
    expect(screen(text)).toEqual({ body: { text, value: JSON.parse(text), depth } })
  })

  it.each([
    ['', 'Unexpected end of JSON input'],
    ['{"a":1', ''],
    ['"a"x', ''],
    ['[1,]', ''],
    ['NaN', ''],
    ["{'a':1}", '']
  ])('calls %j invalid JSON', (text, message) => {
    const verdict = screen(text)
    expect(verdict).toHaveProperty('invalid')
    expect((verdict as { invalid: string }).invalid).toContain(message)
  })

  it('calls bytes that are not UTF-8 invalid', () => {
    expect(screen(Buffer.from([0x22, 0xff, 0x22]))).toEqual({ invalid: 'The body is not valid UTF-8' })
  })

  it.each([
    ['1e400', 'beyond the range of a double'],
    ['[-1e400]', 'beyond the range of a double'],
    ['"\\ud800"', 'unpaired UTF-16 surrogate'],
    ['{"\\udc00":1}', 'member name contains an unpaired'],
    ['[[[1]]]', 'deeper than 2 levels']
  ])('calls %s unstorable', (text, reason) => {
    const verdict = screen(text, 2)
    expect(verdict).toHaveProperty('unstorable')
    expect((verdict as { unstorable: string }).unstorable).toContain(reason)
  })

  it('accepts a paired surrogate escape', () => {
    expect(screen('"\\ud83d\\ude00"')).toHaveProperty('body')
  })

  it('stops at the depth limit without walking a deep value', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    expect(screen(deep)).toEqual({ unstorable: 'The value nests deeper than 100 levels' })
  })

  it.each([
    ['{"a":1,"a":2}', '""', 'a'],
    ['{"a":{"b":1,"c":2,"b":1}}', '"/a"', 'b'],
    ['[{"x":1},{"x":1,"y":[{"z":0,"z":0}]}]', '"/1/y/0"', 'z'],
    ['{"__proto__":1,"__proto__":2}', '""', '__proto__'],
    ['{"a\\u0062":1,"ab":2}', '""', 'ab'],
    ['{"":1,"":2}', '""', '']
  ])('calls %s invalid: a repeated member name (at %s: %j)', (text, pointer, name) => {
    const verdict = screen(text)
    expect(verdict).toEqual({ invalid: `The object at ${pointer} has the member name ${JSON.stringify(name)} twice` })
  })

  it.each([
    '{"a:b":1,"c":"d:e","f":{"g":"::"}}',
    '{"a\\"":1,"a\\\\":2,"b":"\\\\"}',
    '[{"a":1},{"a":1}]',
    '{"a":{"a":{"a":1}}}'
  ])('keeps %s: names repeat only across objects, colons inside strings are text', (text) => {
    expect(screen(text)).toHaveProperty('body')
  })

  it('finds a repeated name in a large body in linear time', () => {
    const members = Array.from({ length: 50_000 }, (_, index) => `"k${index}":"v:${index}"`)
    expect(screen(`{${members.join(',')}}`)).toHaveProperty('body')
    expect(screen(`{${members.join(',')},"k7":0}`)).toHaveProperty('invalid')
    const strings = JSON.stringify(Array.from({ length: 100_000 }, (_, index) => `s${index}`))
    expect(screen(strings)).toHaveProperty('body')
  })
})
