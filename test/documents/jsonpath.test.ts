import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { analyzeJsonPath } from '../../src/documents/jsonpath.js'
import { planPath, unaddressableToken } from '../../src/documents/pointer.js'
import { hostileText } from '../abuse/generators/addresses.js'
import { jsonPath } from '../abuse/generators/jsonpath.js'
import { connectRedis } from '../helpers/app.js'

const redis = await connectRedis()

const accepted: Array<[string, number, number]> = [
  ['$', 0, 0],
  ['$.a', 0, 0],
  ['$.a.b.c', 0, 0],
  ['$.*', 0, 0],
  ['$[*]', 0, 0],
  ['$.a[0]', 0, 0],
  ['$.a.[0]', 0, 0],
  ['$.a[-1]', 0, 0],
  ['$.a[0,1,2]', 0, 0],
  ['$.a[-1,-2]', 0, 0],
  ['$.a[1:3]', 0, 0],
  ['$.a[:3]', 0, 0],
  ['$.a[1:]', 0, 0],
  ['$.a[::2]', 0, 0],
  ['$.a[:]', 0, 0],
  ['$.a[::]', 0, 0],
  ['$.a[0:1:]', 0, 0],
  ['$.a[ 0 : 1 : 10 ]', 0, 0],
  ['$.a[-0]', 0, 0],
  ['$.a[?(@.b > -0.5)]', 0, 1],
  ['$.a[-3:-1:1]', 0, 0],
  ["$['a','b']", 0, 0],
  ['$["a b"]', 0, 0],
  ['$["a\\"b"]', 0, 0],
  ['$["😀\\\\"]', 0, 0],
  ['$.a[?(@ == $.limit)]', 0, 1],
  ['$.a[?(@.b == $["limit"])]', 0, 1],
  ["$['it\\'s']", 0, 0],
  ['$..a', 1, 0],
  ['$..*', 1, 0],
  ['$..[0]', 1, 0],
  ["$..['a','b']", 1, 0],
  ['$..a..b', 2, 0],
  ['$.a[?(@.b > 1)]', 0, 1],
  ['$.a[?@.b > 1]', 0, 1],
  ['$.a[?(@.b)]', 0, 1],
  ['$.a[?(@.b == "x" && @.c != 2.5 || @.d <= -1)]', 0, 1],
  ['$.a[?((@.b >= 1) && (@.c < 2))]', 0, 1],
  ['$.a[?(@.b == true)]', 0, 1],
  ['$.a[?(@.b == null)]', 0, 1],
  ['$.a[?(@ == $.limit)]', 0, 1],
  ['$.a[?(@.b[?(@.c > 1)])]', 0, 2],
  ['$..book[?(@.price < 10)].title', 1, 1],
  ['$.a[?(@..b)]', 1, 1],
  ['$.a [ 0 ]', 0, 0],
  ['$.a[?(@b > 1)]', 0, 1],
  ['$.a[? ( @.b > 1 ) ]', 0, 1],
  ['$.x-y_z~+#%$^/:1', 0, 0]
]

describe('analyzeJsonPath', () => {
  it.each(accepted)('accepts %s (%d descents, %d filters), and so does RedisJSON', async (expression, descents, filters) => {
    expect(analyzeJsonPath(expression)).toMatchObject({ shape: { descents, filters } })
    await redis.sendCommand(['JSON.SET', 'jsonpath-test', '$', '{"a":[{"b":2,"c":1}],"limit":2}'])
    await expect(redis.sendCommand(['JSON.GET', 'jsonpath-test', expression])).resolves.toBeTypeOf('string')
  })

  it.each([
    ['a', 'starts with "$"'],
    ['$a', 'starts with "$." or "$["'],
    ['$*', 'starts with "$." or "$["'],
    ['$ .a', 'starts with "$." or "$["'],
    ['', 'starts with "$"'],
    ['$[', 'Unexpected'],
    ['$.a[0', '"]" is expected'],
    ['$..', 'A name is expected'],
    ['$.', 'A name is expected'],
    ['$["open', 'not closed'],
    ['$.a[99999999999999999999999]', 'at most 15 digits'],
    ['$.a[1:2:0]', "step is a positive number"],
    ['$.a[::-1]', "step is a positive number"],
    ['$.a[0:1:-0]', "step is a positive number"],
    ['$.a[::01]', "step is a positive number"],
    ['$["一"][11:-2:-0]', "step is a positive number"],
    ['$.a[1:2:3:4]', '"]" is expected'],
    ["$.a['a',)'']", 'A quoted name is expected'],
    ["$.a['a', 0]", 'A quoted name is expected'],
    ['$.a[1::2:]', '"]" is expected'],
    ['$[01]', 'no leading zero'],
    ['$.a[-01:]', 'no leading zero'],
    ['$.a[?(@ == 01)]', 'no leading zero'],
    ['$.a[?(@.b > 1234567890123456)]', 'at most 15 digits'],
    ['$..a..b..c', 'at most 2 recursive descents'],
    ['$..*..*..*', 'at most 2 recursive descents'],
    ['$.a[?(@..b..c..d)]', 'at most 2 recursive descents'],
    ['$.a[?(@.b =~ "(a+)+$")]', 'regular expression'],
    ['$[?(@[?(@[?(@)])])]', 'nest at most 2 deep'],
    [`$${'[?(@'.repeat(21)}${')]'.repeat(21)}`, 'nest at most 2 deep'],
    ['$[0,0]', 'twice'],
    ["$['a','a']", 'twice'],
    ['$[0,-1]', 'all from the start or all from the end'],
    [`$[${Array.from({ length: 33 }, (_, index) => index).join(',')}]`, 'at most 32 entries'],
    ['$.a[?(@.b >)]', 'Unexpected'],
    ['$.a[?(@.b > 1) junk]', '"]" is expected'],
    ['$.a b', 'Unexpected'],
    ['$["😀\\f"]', 'escapes only its quote and the backslash'],
    ['$["\\u0041😀"]', 'escapes only its quote and the backslash'],
    ['$.a[?(@.o=="😀\\n")]', 'escapes only its quote and the backslash'],
    ['$[?$[*] >= 11]', 'a wildcard there is refused'],
    ['$.*[?($.*)]', 'a wildcard there is refused'],
    ['$[?(@ == $..a)]', 'a recursive descent there is refused'],
    ['$[?(@ == $.a[0,1])]', 'a union there is refused'],
    ['$[?(@ == $.a[?(@)])]', 'a filter there is refused'],
    [`$${'.a'.repeat(1100)}`, 'at most 2048 characters']
  ])('refuses %s: %s', (expression, reason) => {
    const verdict = analyzeJsonPath(expression)
    expect(verdict).toHaveProperty('problem')
    expect((verdict as { problem: string }).problem).toContain(reason)
  })
})

/**
 * RedisJSON builds its parse error from the expression with every character cut to its low byte, and
 * aborts the whole server when that makes a NUL (a parse error on `$["一"][1:2:0]` takes Redis down). So
 * nothing the screener accepts may fail RedisJSON's parse. The expressions go to RedisJSON with every
 * character beyond ASCII made an `x`, which changes no parse (such characters only pass inside quotes).
 */
describe('every expression the screener accepts, RedisJSON parses', () => {
  it('holds for expressions built from every part of the grammar', async () => {
    await redis.sendCommand(['JSON.SET', 'jsonpath-grammar', '$', '{"a":[{"b":2,"c":1}],"limit":2}'])
    let accepted = 0
    await fc.assert(fc.asyncProperty(jsonPath, async (expression) => {
      if ('problem' in analyzeJsonPath(expression)) return
      accepted++
      const ascii = expression.replace(/[\u0080-\u{10FFFF}]/gu, 'x')
      const answer = await redis.sendCommand(['JSON.GET', 'jsonpath-grammar', ascii]).catch((error: Error) => error.message)
      expect(String(answer), expression).not.toMatch(/^Error occurred on position/)
    }), { numRuns: 4000 })
    expect(accepted).toBeGreaterThan(200)
  }, 120_000)

  it('holds for the paths the service makes from JSON Pointers', async () => {
    await redis.sendCommand(['JSON.SET', 'jsonpath-grammar', '$', '{}'])
    await fc.assert(fc.asyncProperty(fc.array(fc.oneof(hostileText(), fc.constantFrom('0', '-', '"', "'", '\\', `a"b'c`)), { maxLength: 4 }), async (tokens) => {
      if (unaddressableToken(tokens) !== undefined) return
      const path = planPath(tokens).guess.replace(/[\u0080-\u{10FFFF}]/gu, 'x')
      const answer = await redis.sendCommand(['JSON.GET', 'jsonpath-grammar', path]).catch((error: Error) => error.message)
      expect(String(answer), path).not.toMatch(/^Error occurred on position/)
    }), { numRuns: 2000 })
  }, 120_000)
})

describe('whether an expression may match several values', () => {
  it.each([
    ['$', false], ['$.a.b[0]', false], ['$["a"][-1]', false], ['$.a[?(@ == $.limit)]', true],
    ['$.*', true], ['$.a[1:]', true], ['$..a', true], ["$['a','b']", true], ['$[0,1]', true]
  ])('%s: %s', (expression, multiple) => {
    expect(analyzeJsonPath(expression)).toMatchObject({ shape: { multiple } })
  })
})
