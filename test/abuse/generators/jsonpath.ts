import fc from 'fast-check'
import { hostileText } from './addresses.js'

/**
 * JSONPath expressions built from fragments of RedisJSON's grammar: names, wildcards, recursive
 * descents, unions, slices and filters (regular expressions, nested filters and paths from the root
 * among them), with numbers of every length and quotes of both kinds, combined at random, and now
 * and then spliced with stray characters.
 */

const name = fc.constantFrom('a', 'n', 's', 'o', 'x', 'items', 'price', 'name', 'tags', 'deep', 'missing', '$', 'a-b', '0')

const number = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -3, max: 12 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('999999999999999', '1000000000000000', '9223372036854775807', '18446744073709551616', '9'.repeat(40), '-0',
    '01', '1e3', '1.5', '-9223372036854775808') }
)

const quoted = fc.oneof(
  name.map((text) => `'${text}'`),
  name.map((text) => `"${text}"`),
  fc.constantFrom(`'a\\'b'`, `"a\\"b"`, `'"'`, `"'"`, `'\\\\'`, `"\\u0041"`, `'unclosed`, `""`, `''`, `' a'`, `"\\"`),
  hostileText(6).map((text) => JSON.stringify(text))
)

const literal = fc.oneof(number, quoted, fc.constantFrom('true', 'false', 'null', '1.5', '-1', '"text"', "'x'"))

const comparison = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('==', '!=', '<', '<=', '>', '>=') },
  { weight: 1, arbitrary: fc.constantFrom('=~', '===', '=', '<>') }
)

/** A path inside a filter: from the current value or from the root. */
const filterPath = fc.tuple(fc.constantFrom('@', '$'), fc.array(fc.oneof(
  name.map((text) => `.${text}`),
  fc.constantFrom('.*', '..x', '..*', '[0]', '[*]', "['n']", '[-1]')
), { maxLength: 3 })).map(([start, steps]) => start + steps.join(''))

const condition: fc.Arbitrary<string> = fc.letrec<{ condition: string }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small' },
    filterPath,
    fc.tuple(filterPath, comparison, fc.oneof(literal, filterPath)).map(([left, operator, right]) => `${left} ${operator} ${right}`),
    fc.tuple(tie('condition'), fc.constantFrom('&&', '||', '&&', '||', '&', '|'), tie('condition')).map(([a, operator, b]) => `${a} ${operator} ${b}`),
    tie('condition').map((inner) => `(${inner})`),
    tie('condition').map((inner) => `!${inner}`),
    fc.constantFrom('@.a[?(@.n > 1)]', '@.a[?(@.b[?(@.c)])]', '@.name =~ "(a+)+$"', '@.s =~ "^.*$"', '@..price > 10')
  )
})).condition

const selector = fc.oneof(
  { weight: 3, arbitrary: name.map((text) => `.${text}`) },
  { weight: 2, arbitrary: fc.constantFrom('.*', '[*]', '..*', '..[*]') },
  { weight: 1, arbitrary: fc.constantFrom('..', '.', '[]', '[', ']', '[?]') },
  { weight: 2, arbitrary: name.map((text) => `..${text}`) },
  { weight: 2, arbitrary: fc.array(quoted, { minLength: 1, maxLength: 4 }).map((items) => `[${items.join(',')}]`) },
  { weight: 2, arbitrary: fc.array(number, { minLength: 1, maxLength: 4 }).map((items) => `[${items.join(',')}]`) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.option(number), fc.option(number), fc.option(number)).map(([start, end, step]) =>
      `[${start ?? ''}:${end ?? ''}${step === null ? '' : `:${step}`}]`)
  },
  { weight: 3, arbitrary: fc.tuple(condition, fc.boolean()).map(([inner, parenthesised]) => parenthesised ? `[?(${inner})]` : `[?${inner}]`) },
  { weight: 1, arbitrary: fc.integer({ min: 33, max: 40 }).map((count) => `[${Array.from({ length: count }, (_, i) => i).join(',')}]`) },
  { weight: 1, arbitrary: fc.constantFrom('[0,-1]', '[1,1]', "['a','a']", '[0:1:0]', '[::-1]', '[1e3]') }
)

/** A JSONPath: `$` and selectors, sometimes with a stray character or no `$`, sometimes very long. */
export const jsonPath = fc.oneof(
  { weight: 12, arbitrary: fc.array(selector, { maxLength: 6 }).map((selectors) => '$' + selectors.join('')) },
  { weight: 1, arbitrary: fc.tuple(fc.array(selector, { maxLength: 4 }), fc.constantFrom(' ', '  ', '\t', '\n', '"', "'", '(', ')', '\\', '\u0000', 'é'), fc.nat(40))
    .map(([selectors, stray, at]) => { const path = '$' + selectors.join(''); const cut = at % (path.length + 1); return path.slice(0, cut) + stray + path.slice(cut) }) },
  { weight: 1, arbitrary: fc.constantFrom('a', '.a', '@', '', 'a.b', '$$', '$.a.', '$..', '$...a', '$' + '.a'.repeat(1100), '$' + '..a'.repeat(3), '$' + '[0]'.repeat(700)) },
  { weight: 1, arbitrary: hostileText(20).map((text) => '$' + text) }
)
