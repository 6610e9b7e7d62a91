import fc from 'fast-check'
import { escapeToken, hostileText, memberName, pointerTokens } from './addresses.js'

/**
 * Hostile request bodies as the bytes a client sends: JSON texts that are deep, wide, full of numbers
 * no double holds, lone surrogates and repeated member names; texts that are almost JSON; and the
 * service's own bodies (JSON Patch, operations, batches) filled with hostile pointers and values.
 */

/** Number texts at and past every edge: 64-bit integers, doubles, exponents, hundreds of digits. */
export const numberText = fc.oneof(
  fc.constantFrom(
    '0', '-0', '0.0', '-0.0', '1.0', '1E2', '1e+2', '1e-2', '1e0001', '5e-324', '2.2250738585072014e-308', '1.7976931348623157e308',
    '1e308', '1e309', '-1e309', '1e-400', '1e400', '1e99999999999999999999', '9007199254740993', '9223372036854775807',
    '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '18446744073709551615', '18446744073709551616',
    '340282366920938463463374607431768211456', '0.1', '0.30000000000000004', '123456789012345678901234567890.5'
  ),
  fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 400 }), fc.option(fc.integer({ min: -500, max: 500 })))
    .map(([negative, whole, fraction, exponent]) => (negative ? '-' : '') + '9'.repeat(whole) +
      (fraction ? '.' + '1'.repeat(fraction) : '') + (exponent === null ? '' : `e${exponent}`))
)

/** A JSON string literal of hostile text, its lone surrogates written as escapes. */
export const stringText = hostileText(24).map((text) => JSON.stringify(text))

/** Nesting at and past MAX_DEPTH (100), RedisJSON's 128 and far beyond. */
export const deepText = fc.tuple(
  fc.constantFrom(1, 99, 100, 101, 120, 127, 128, 129, 1000, 100_000),
  fc.constantFrom('[', '{"a":', '{"":[', '[{"\\"":')
).map(([depth, opener]) => {
  const closer = opener === '[' ? ']' : opener === '{"a":' ? '}' : ']}'
  const levels = opener.endsWith('[') && opener !== '[' ? Math.ceil(depth / 2) : depth
  return opener.repeat(levels) + '1' + closer.repeat(levels)
})

/** Many members or elements, up to about a megabyte. */
export const wideText = fc.tuple(fc.constantFrom(1000, 10_000, 100_000, 400_000), fc.constantFrom('array', 'object', 'strings', 'empties'))
  .map(([count, shape]) => {
    if (shape === 'array') return `[${'0,'.repeat(count - 1)}0]`
    if (shape === 'strings') return `[${'"",'.repeat(count - 1)}""]`
    if (shape === 'empties') return `[${'{},'.repeat(count - 1)}{}]`
    return `{${Array.from({ length: Math.min(count, 60_000) }, (_, i) => `"${i}":0`).join(',')}}`
  })

/** Objects that repeat a member name, directly, through an escape, or deep inside. */
export const duplicateText = fc.constantFrom(
  '{"a":1,"a":2}', '{"a":1,"\\u0061":2}', '[{"x":{"b":1,"b":1}}]', '{"__proto__":1,"__proto__":2}', '{"":1,"":2}',
  '{"op":"add","op":"remove","path":"/a"}', '[{"op":"add","path":"/a","path":"/b","value":1}]', '{"😀":1,"\\ud83d\\ude00":2}'
)

/** Almost JSON: what lenient parsers (RedisJSON's among them) take and the service must not. */
export const almostJsonText = fc.constantFrom(
  '', ' ', '{', '}', '[1,]', '{"a":1,}', '"a"x', '{} {}', '\ufeff{}', 'NaN', 'Infinity', '-Infinity', '[1 2]', "{'a':1}",
  '{"a":1}//c', '/*c*/{}', '01', '1.', '.1', '+1', '0x10', '"\u0000"', '"tab\there"', '"\\x41"', '"\\u12"', 'tru', 'nul',
  '"\\ud800"', '["\\udc00\\ud800"]', '{"\\udfff":1}', 'undefined', '[,1]', '{"a" 1}', '\u0000', '""'.repeat(3)
)

/** Any JSON value a client may store, as JSON.stringify writes it. */
export const plainJsonText = fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null')

/** A JSON text mixing the hostile parts: members with hostile names holding hostile values. */
export const hostileJsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberText, stringText, fc.constantFrom('true', 'false', 'null'),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc.uniqueArray(fc.tuple(memberName, tie('value')), { maxLength: 4, selector: ([name]) => name })
      .map((members) => `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`)
  )
})).value

/** Bytes that are not UTF-8, or are only just. */
export const badBytes = fc.oneof(
  fc.constantFrom([0x22, 0xc3, 0x28, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22], [0x22, 0xc0, 0x80, 0x22], [0xff, 0xfe, 0x7b, 0x7d],
    [0xef, 0xbb, 0xbf, 0x7b, 0x7d], [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22]),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => [...bytes])
).map((bytes) => Buffer.from(bytes))

/** Every kind of body, as bytes. */
export const anyBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 3, arbitrary: hostileJsonText },
  { weight: 2, arbitrary: plainJsonText },
  { weight: 1, arbitrary: numberText },
  { weight: 1, arbitrary: deepText },
  { weight: 1, arbitrary: wideText },
  { weight: 1, arbitrary: duplicateText },
  { weight: 2, arbitrary: almostJsonText },
  { weight: 1, arbitrary: badBytes }
)

/** Pointers into the document send.ts seeds (documentAlong), so that operations often find their target. */
const seededPointer = fc.constantFrom('', '/n', '/f', '/big', '/s', '/a', '/a/0', '/a/1', '/a/-', '/a/2/three', '/a/3', '/o',
  '/o/x', '/o/new', '/b', '/sibling/0')

/** A pointer as body text: into the seeded document, RFC 6901 from hostile tokens, or not quite a pointer. */
export const pointerText = fc.oneof(
  { weight: 4, arbitrary: seededPointer },
  { weight: 4, arbitrary: pointerTokens.map((tokens) => tokens.map((token) => '/' + escapeToken(token)).join('')) },
  { weight: 1, arbitrary: fc.constantFrom('a', '~', '/~2', '/a~', '#/a', '/-', '/-/a', '//', '/ ', '/a/-1', '/%41', '/' + '9'.repeat(30)) }
)

const patchOps = ['add', 'remove', 'replace', 'move', 'copy', 'test', 'ADD', '', 'bogus']

/** A JSON Patch operation as text: hostile op, path, from and value, members sometimes missing or extra. */
function patchOperation (value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.record({
    op: fc.constantFrom(...patchOps),
    path: fc.option(pointerText, { freq: 10 }),
    from: fc.option(pointerText, { freq: 2 }),
    value: fc.option(value, { freq: 4 }),
    extra: fc.option(fc.constantFrom('"extra":1', '"op":"remove"', '"value":null', '"path":1'), { freq: 8 })
  }).map(({ op, path, from, value, extra }) => {
    const members = [`"op":${JSON.stringify(op)}`]
    if (path !== null) members.push(`"path":${JSON.stringify(path)}`)
    if (from !== null) members.push(`"from":${JSON.stringify(from)}`)
    if (value !== null) members.push(`"value":${value}`)
    if (extra !== null) members.push(extra)
    return `{${members.join(',')}}`
  })
}

export const patchOperationText = patchOperation(fc.oneof(hostileJsonText, numberText, deepText))

export const jsonPatchText = fc.oneof(
  { weight: 6, arbitrary: fc.array(patchOperationText, { maxLength: 6 }).map((ops) => `[${ops.join(',')}]`) },
  { weight: 1, arbitrary: fc.tuple(patchOperation(hostileJsonText), fc.constantFrom(999, 1000, 1001)).map(([op, count]) => `[${Array(count).fill(op).join(',')}]`) },
  { weight: 1, arbitrary: fc.oneof(hostileJsonText, almostJsonText) }
)

const integerText = fc.oneof(
  fc.integer({ min: -5, max: 5 }).map(String),
  fc.constantFrom('2147483647', '2147483648', '-2147483648', '-2147483649', '1e20', '1.5', '-0', '9223372036854775808', '"1"', 'null')
)

const operationNames = ['incr', 'mult', 'append', 'push', 'insert', 'pop', 'trim', 'indexOf', 'toggle', 'clear', 'INCR', 'bogus']

/** One operation of POST as text, with hostile numbers, values, indices and paths. */
export const operationText = fc.record({
  op: fc.constantFrom(...operationNames),
  by: fc.option(numberText, { freq: 2 }),
  value: fc.option(fc.oneof(stringText, hostileJsonText), { freq: 3 }),
  values: fc.option(fc.array(hostileJsonText, { minLength: 0, maxLength: 3 }).map((items) => `[${items.join(',')}]`), { freq: 3 }),
  index: fc.option(integerText, { freq: 3 }),
  start: fc.option(integerText, { freq: 4 }),
  stop: fc.option(integerText, { freq: 4 }),
  path: fc.option(pointerText, { freq: 2 })
}).map(({ op, ...rest }) => {
  const members = [`"op":${JSON.stringify(op)}`]
  for (const [name, value] of Object.entries(rest)) {
    if (value === null) continue
    members.push(`${JSON.stringify(name)}:${name === 'path' ? JSON.stringify(value) : value}`)
  }
  return `{${members.join(',')}}`
})

export const operationsText = fc.oneof(
  { weight: 4, arbitrary: operationText },
  { weight: 3, arbitrary: fc.array(operationText, { maxLength: 5 }).map((ops) => `[${ops.join(',')}]`) },
  { weight: 1, arbitrary: fc.tuple(operationText, fc.constantFrom(100, 101)).map(([op, count]) => `[${Array(count).fill(op).join(',')}]`) }
)

/** Media types with every kind of parameter, case and spacing, the service's own and others. */
export const contentType = fc.oneof(
  fc.constantFrom('application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/schema+json'),
  fc.tuple(
    fc.constantFrom('application/json', 'APPLICATION/JSON', 'application/merge-patch+json', 'application/json-patch+json',
      'application/schema+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
      'application/jsonx', 'application/*', '*/*', 'application/json, text/plain', 'application/problem+json', '', ' ',
      'application/json-seq', 'application/ld+json', 'application/vnd.api+json'),
    fc.constantFrom('', '; charset=utf-8', '; charset=UTF-8', ';charset="utf-8"', '; charset=latin1', '; charset=utf-16',
      '; charset=', '; charset', ';;;', '; a=b; charset=utf-8', '; charset=utf-8; charset=latin1', '; q=0.1',
      '; charset=utf-8'.repeat(500), `; x=${'y'.repeat(8000)}`)
  ).map(([type, parameters]) => type + parameters)
)
