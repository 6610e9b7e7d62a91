import { describe, expect, it } from 'vitest'
import {
  checkKey, formatPointer, indexToken, memberStep, parseDocumentAddress, parsePointer, planPath, unaddressableToken
} from '../../src/documents/pointer.js'

/** The route's view of a path after /docs/: the key as the router decodes it, and the rest as sent. */
function routeParams (rawPath: string): [key: string, rawPointer: string | undefined] {
  const slash = rawPath.indexOf('/')
  return slash === -1 ? [decodeURIComponent(rawPath), undefined] : [decodeURIComponent(rawPath.slice(0, slash)), rawPath.slice(slash + 1)]
}

describe('parseDocumentAddress: the route\'s key and the path after it -> key and JSON Pointer tokens', () => {
  it.each([
    ['k', 'k', []],
    ['k/a/b', 'k', ['a', 'b']],
    ['user%3A1/name', 'user:1', ['name']],
    ['a%2Fb/c%2Fd', 'a/b', ['c/d']],
    ['k/c%2Fd/e', 'k', ['c/d', 'e']],
    ['k/%252F', 'k', ['%2F']],
    ['k/a~1b', 'k', ['a/b']],
    ['k/m~0n', 'k', ['m~n']],
    ['k/~01', 'k', ['~1']],
    ['k/~10', 'k', ['/0']],
    ['k/', 'k', ['']],
    ['k//x', 'k', ['', 'x']],
    ['k/a%20b', 'k', ['a b']],
    ['k/%22q%22', 'k', ['"q"']],
    ['k/%5C', 'k', ['\\']],
    ['k/%C3%A9t%C3%A9', 'k', ['été']],
    ['k/%F0%9F%98%80', 'k', ['😀']],
    ['k/%24/*/.', 'k', ['$', '*', '.']],
    ['k/a+b', 'k', ['a+b']],
    ['k/%7E1', 'k', ['/']]
  ])('%s -> key %j, tokens %j', (raw, key, tokens) => {
    expect(parseDocumentAddress(...routeParams(raw))).toEqual({ key, tokens })
  })

  it.each([
    ['', 'The key is empty'],
    ['/a', 'The key is empty'],
    ['k/%ED%A0%80', 'not valid percent-encoded UTF-8'],
    ['k/%', 'not valid percent-encoded UTF-8'],
    ['k/%FF', 'not valid percent-encoded UTF-8'],
    ['k/a~2', 'has a "~" not followed by 0 or 1'],
    ['k/a~', 'has a "~" not followed by 0 or 1'],
    ['a%00b', 'control character'],
    ['a%0Ab', 'control character'],
    ['a%7Fb', 'control character'],
    ['a%C2%85b', 'control character'],
    ['x'.repeat(1025), 'longer than 1024 bytes'],
    ['%C3%A9'.repeat(513), 'longer than 1024 bytes']
  ])('refuses %j: %s', (raw, problem) => {
    const parsed = parseDocumentAddress(...routeParams(raw))
    expect(parsed).toHaveProperty('problem')
    expect((parsed as { problem: string }).problem).toContain(problem)
  })

  it('takes the pointer from ?pointer= instead, never from both', () => {
    expect(parseDocumentAddress('k', undefined, '/a~1b/')).toEqual({ key: 'k', tokens: ['a/b', ''] })
    expect(parseDocumentAddress('k', undefined, '')).toEqual({ key: 'k', tokens: [] })
    expect(parseDocumentAddress('k', '', '/a')).toEqual({ problem: 'Give the pointer in the path or in ?pointer=, not both' })
    expect(parseDocumentAddress('k', undefined, 'a')).toHaveProperty('problem')
  })

  it('takes keys of exactly 1024 bytes', () => {
    expect(checkKey('x'.repeat(1024))).toBeUndefined()
    expect(checkKey('é'.repeat(512))).toBeUndefined()
  })
})

describe('memberStep: member names become quoted brackets, escaped only when no quote avoids it', () => {
  it.each([
    ['a', '["a"]'],
    ['', '[""]'],
    ['a"b', '[\'a"b\']'],
    ['a\\b', '["a\\\\b"]'],
    ['\\"', '["\\\\\\""]'],
    ["it's", '["it\'s"]'],
    ['it\'s "x"', '["it\'s \\"x\\""]'],
    ['a.b', '["a.b"]'],
    ['[0]', '["[0]"]'],
    ['"]', '[\'"]\']'],
    ['$..*', '["$..*"]'],
    ['tab\there', '["tab\there"]'],
    ['\u2028', '["\u2028"]'],
    ['0', '["0"]']
  ])('%j -> %s', (name, step) => {
    expect(memberStep(name)).toBe(step)
  })
})

describe('indexToken: only canonical RFC 6901 array indices address elements', () => {
  it.each([
    ['0', '0'],
    ['7', '7'],
    ['10', '10'],
    ['999999999999999', '999999999999999'],
    ['-', '-'],
    ['01', ''],
    ['-1', ''],
    ['1.5', ''],
    ['1e3', ''],
    [' 1', ''],
    ['', ''],
    ['1000000000000000', ''],
    ['99999999999999999999999', ''],
    ['٣', '']
  ])('%j -> %j', (token, index) => {
    expect(indexToken(token)).toBe(index)
  })
})

describe('parsePointer: JSON Pointer strings in request bodies', () => {
  it.each([
    ['', []],
    ['/', ['']],
    ['/a/0', ['a', '0']],
    ['/a~1b/m~0n', ['a/b', 'm~n']],
    ['/%41', ['%41']]
  ])('%j -> %j', (pointer, tokens) => {
    expect(parsePointer(pointer)).toEqual(tokens)
  })

  it.each(['a', 'a/b', '/a~2', '/~'])('refuses %j', (pointer) => {
    expect(parsePointer(pointer)).toBeUndefined()
  })
})

describe('planPath', () => {
  it('reads the root as $', () => {
    expect(planPath([])).toEqual({ guess: '$', ambiguous: false, direct: true, steps: [] })
  })

  it('guesses digits are indices and hands the resolver both readings', () => {
    expect(planPath(['items', '0', 'name'])).toEqual({
      guess: '$["items"][0]["name"]',
      ambiguous: true,
      direct: true,
      steps: ['["items"]', '', '["0"]', '0', '["name"]', '']
    })
  })

  it('leaves a member no path expresses to the resolver, by its JSON name', () => {
    expect(planPath(['a', ' b'])).toMatchObject({ direct: false, steps: ['["a"]', '', '', '" b"'] })
  })

  it('is unambiguous without digit tokens', () => {
    expect(planPath(['a', '01', '-']).ambiguous).toBe(false)
  })
})

describe('formatPointer', () => {
  it.each([
    [[], ''],
    [[''], '/'],
    [['a/b', 'm~n'], '/a~1b/m~0n'],
    [['~1'], '/~01']
  ])('%j -> %j', (tokens, pointer) => {
    expect(formatPointer(tokens)).toBe(pointer)
  })
})

describe('unaddressableToken: names RedisJSON paths cannot express', () => {
  it.each([
    [['a', 'b'], undefined],
    [['a b', 'tab\tstart', '\rx', ''], undefined],
    [[' a'], ' a'],
    [['ok', ' '], ' '],
    [['\nx'], '\nx']
  ])('%j -> %j', (tokens, token) => {
    expect(unaddressableToken(tokens)).toBe(token)
  })
})
