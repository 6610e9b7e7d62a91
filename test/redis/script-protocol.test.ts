import { describe, expect, it } from 'vitest'
import { FunctionLibrary, type LuaUnit } from '../../src/redis/lua-script.js'
import {
  ARGUMENT_CURSOR, flag, list, number, optionalNumber, optionalNumberText, protocol, record, rest, text, type Arg
} from '../../src/redis/script-protocol.js'
import { buildTestApp } from '../helpers/app.js'

/** The strings an argument writes for a value. */
function written<T> (arg: Arg<T>, value: T): string[] {
  const args: string[] = []
  arg.write(value, args)
  return args
}

describe('arguments: each value written as the strings Lua reads back', () => {
  it.each<[string, Arg<never>, unknown, string[]]>([
    ['text as is', text, 'a b', ['a b']],
    ['empty text', text, '', ['']],
    ['text that looks like a number or a flag', text, '1', ['1']],
    ['unicode text', text, 'é\u0000☃', ['é\u0000☃']],
    ['true', flag, true, ['1']],
    ['false', flag, false, ['0']],
    ['an integer', number, 42, ['42']],
    ['zero', number, 0, ['0']],
    ['a negative fraction', number, -1.5, ['-1.5']],
    ['a large integer', number, 2 ** 53, ['9007199254740992']],
    ['a number that is there', optionalNumber, 7, ['7']],
    ['a number that is not', optionalNumber, undefined, ['']],
    ['zero, not nothing', optionalNumberText, 0, ['0']],
    ['nothing, not zero', optionalNumberText, undefined, ['']],
    ['the rest as it is', rest, ['a', '', 'b'], ['a', '', 'b']],
    ['no rest', rest, [], []],
    ['a list: its count, then each', list(text), ['x', 'y'], ['2', 'x', 'y']],
    ['an empty list', list(text), [], ['0']],
    ['a list of lists', list(list(number)), [[1], [], [2, 3]], ['3', '1', '1', '0', '2', '2', '3']],
    ['a record, in declaration order whatever the value\'s', record({ b: text, a: flag }), { a: true, b: 'x' }, ['x', '1']],
    ['records in a list', list(record({ n: number, s: list(text) })), [{ n: 1, s: ['a'] }, { n: 2, s: [] }], ['2', '1', '1', 'a', '2', '0']]
  ])('%s', (_, arg, value, strings) => {
    expect(written(arg, value as never)).toEqual(strings)
  })

  it.each([NaN, Infinity, -Infinity])('refuses %s for a number, which Lua would read as nil', (value) => {
    expect(() => written(number, value)).toThrow(RangeError)
    expect(() => written(optionalNumber, value)).toThrow(RangeError)
  })
})

describe('a protocol: keys and arguments by name, in declaration order', () => {
  const declared = protocol({
    keys: ['doc', 'ver'],
    args: { ifMatch: text, wantValue: flag, limit: number, bound: optionalNumber, ttl: optionalNumberText },
    reply: (raw) => raw as string
  })

  it('encodes keys and arguments in the declared slots, whatever order the values come in', () => {
    expect(declared.encode({ ver: 'v', doc: 'd' }, { ttl: undefined, bound: 3, limit: 9, wantValue: true, ifMatch: '"1"' }))
      .toEqual({ keys: ['d', 'v'], args: ['"1"', '1', '9', '3', ''] })
  })

  it('gives Lua a local per key and argument, read by position when each takes one string', () => {
    expect(declared.cursor).toBe(false)
    expect(declared.lua).toBe([
      'local doc, ver = KEYS[1], KEYS[2]',
      'local ifMatch = ARGV[1]',
      "local wantValue = ARGV[2] == '1'",
      'local limit = ARGV[3] + 0',
      'local bound = tonumber(ARGV[4])',
      'local ttl = ARGV[5]',
      ''
    ].join('\n'))
  })

  it('reads arguments in turn once one of them varies in length, lists of one-call items without a closure', () => {
    const varying = protocol({
      keys: ['a'],
      args: { first: text, names: list(text), items: list(record({ n: number, on: flag })), last: number },
      reply: () => undefined
    })
    expect(varying.cursor).toBe(true)
    expect(varying.lua).toBe([
      'local a = KEYS[1]',
      'local first = arg()',
      'local names = listArg(arg)',
      "local items = listArg(function() return { n = arg() + 0, on = arg() == '1' } end)",
      'local last = arg() + 0',
      ''
    ].join('\n'))
    expect(varying.encode({ a: 'k' }, { first: 'f', names: ['x'], items: [{ n: 1, on: false }], last: 2 }))
      .toEqual({ keys: ['k'], args: ['f', '1', 'x', '1', '1', '0', '2'] })
  })

  it('gives the rest of the arguments a local holding the position of its first, after arguments read by position or in turn', () => {
    const positional = protocol({ keys: [], args: { from: text, count: number, others: rest }, reply: () => undefined })
    expect(positional.lua).toBe(['local from = ARGV[1]', 'local count = ARGV[2] + 0', 'local others = 3', ''].join('\n'))
    expect(positional.encode({}, { from: 'f', count: 2, others: ['x', 'y'] })).toEqual({ keys: [], args: ['f', '2', 'x', 'y'] })
    const inTurn = protocol({ keys: [], args: { names: list(text), others: rest }, reply: () => undefined })
    expect(inTurn.lua).toBe(['local names = listArg(arg)', 'local others = argi + 1', ''].join('\n'))
  })

  it('puts groups of keys after the fixed ones, one table of them per group in Lua', () => {
    const grouped = protocol({
      keys: ['mirror', 'scratch'],
      keyGroups: { name: 'documents', keys: ['doc', 'ver'] },
      args: { rest },
      reply: () => undefined
    })
    expect(grouped.encode({ mirror: 'm', scratch: 's', documents: [{ doc: 'd1', ver: 'v1' }, { ver: 'v2', doc: 'd2' }] }, { rest: ['r'] }))
      .toEqual({ keys: ['m', 's', 'd1', 'v1', 'd2', 'v2'], args: ['r'] })
    expect(grouped.encode({ mirror: 'm', scratch: 's', documents: [] }, { rest: [] })).toEqual({ keys: ['m', 's'], args: [] })
    expect(grouped.lua).toBe([
      'local mirror, scratch = KEYS[1], KEYS[2]',
      'local documents = {}',
      'for i = 1, (#KEYS - 2) / 2 do documents[i] = { doc = KEYS[1 + 2 * i], ver = KEYS[2 + 2 * i] } end',
      'local rest = 1',
      ''
    ].join('\n'))
  })

  it('decodes the reply with the declared parser', () => {
    expect(declared.decode('x')).toBe('x')
  })

  it.each<[string, () => unknown]>([
    ['a name Lua cannot hold', () => protocol({ keys: ['a-b'], args: {}, reply: () => undefined })],
    ['a name given twice', () => protocol({ keys: ['a'], args: { a: text }, reply: () => undefined })],
    ['an argument the body reads itself before others', () => protocol({ keys: [], args: { pairs: rest, n: number }, reply: () => undefined })],
    ['a list of what Lua cannot read', () => list(rest)],
    ['a record with what Lua cannot read', () => record({ pairs: rest })]
  ])('refuses %s', (_, declare) => {
    expect(declare).toThrow()
  })
})

const app = await buildTestApp()

describe('what TypeScript encodes, the Lua locals read back, by FCALL on the real Redis', () => {
  const cursor = { name: 'cursor', source: ARGUMENT_CURSOR, reset: 'argi = 0' }
  const byPosition = protocol({
    keys: ['first', 'second'],
    args: { label: text, on: flag, count: number, bound: optionalNumber, ttl: optionalNumberText },
    reply: (raw) => raw
  })
  const inTurn = protocol({
    keys: ['first'],
    keyGroups: { name: 'pairs', keys: ['left', 'right'] },
    args: { label: text, names: list(text), items: list(record({ n: number, on: flag, tags: list(text) })), last: optionalNumber },
    reply: (raw) => raw
  })
  const units: Record<string, LuaUnit> = {
    byPosition: {
      name: 'by-position',
      body: byPosition.lua + "return { first, second, label, on and 'true' or 'false', count, bound or 'nil', ttl }",
      options: {}
    },
    inTurn: {
      name: 'in-turn',
      body: inTurn.lua + `
local out = { first, #pairs, label, #names, #items, last or 'nil' }
for _, pair in ipairs(pairs) do out[#out + 1] = pair.left .. '/' .. pair.right end
for _, name in ipairs(names) do out[#out + 1] = name end
for _, item in ipairs(items) do out[#out + 1] = item.n .. (item.on and '+' or '-') .. table.concat(item.tags, ',') end
return out`,
      options: { shared: cursor }
    }
  }
  const library = new FunctionLibrary(Object.values(units))
  const tag = `${app.keyPrefix}{protocol}`

  it.each<[string, Parameters<typeof byPosition.encode>[1], unknown[]]>([
    ['every value', { label: 'x y', on: true, count: 42, bound: 7, ttl: 0 }, ['x y', 'true', 42, 7, '0']],
    ['empty and absent ones', { label: '', on: false, count: -3, bound: undefined, ttl: undefined }, ['', 'false', -3, 'nil', '']]
  ])('by position: %s', async (_, args, values) => {
    const { keys, args: strings } = byPosition.encode({ first: `${tag}a`, second: `${tag}b` }, args)
    expect(await library.call(app.redis, units.byPosition!, keys, strings)).toEqual([`${tag}a`, `${tag}b`, ...values])
  })

  it.each<[string, Parameters<typeof inTurn.encode>[1], number, unknown[]]>([
    ['lists, records and a key group', {
      label: 'l', names: ['a', '', 'b'], items: [{ n: 1, on: true, tags: ['x', 'y'] }, { n: 2, on: false, tags: [] }], last: 9
    }, 2, ['l', 3, 2, 9, 'a', '', 'b', '1+x,y', '2-']],
    ['empty lists and no group', { label: '', names: [], items: [], last: undefined }, 0, ['', 0, 0, 'nil']]
  ])('in turn: %s', async (_, args, groups, values) => {
    const pairs = Array.from({ length: groups }, (_, index) => ({ left: `${tag}l${index}`, right: `${tag}r${index}` }))
    const { keys, args: strings } = inTurn.encode({ first: `${tag}f`, pairs }, args)
    const [label, names, items, last, ...rest] = values
    const reply = await library.call<unknown[]>(app.redis, units.inTurn!, keys, strings)
    expect(reply).toEqual([`${tag}f`, groups, label, names, items, last, ...pairs.map(({ left, right }) => `${left}/${right}`), ...rest])
  })
})
