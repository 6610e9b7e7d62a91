import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { documentLua } from '../../src/documents/scripts/prelude.js'
import { pointerArgs } from '../../src/documents/pointer.js'
import { FunctionLibrary, type LuaUnit } from '../../src/redis/lua-script.js'
import { nodeSender } from '../../src/redis/redis.js'
import { connectRedis } from '../helpers/app.js'

/*
 * The Lua every document script shares, unit by unit, called with FCALL: a library of probes that each
 * run one unit of the prelude on the call's keys and arguments.
 */

const probe = (name: string, body: string): LuaUnit => ({ name, body, options: { shared: documentLua } })
const probes = {
  skipValue: probe('skip-value', 'return skipValue(ARGV[1], tonumber(ARGV[2]))'),
  membersOf: probe('members-of', `
local out = {}
for i, member in ipairs(membersOf(ARGV[1])) do out[i] = { member.name, string.sub(ARGV[1], member.value, member.to - 1) } end
return out`),
  versionRecord: probe('version-record', `
local version, expires, size, depth = versionRecord(KEYS[1])
return { version, expires or false, size or false, depth or false }`),
  preconditions: probe('preconditions', "return preconditionHolds(KEYS[1], ARGV[1] == '1', ARGV[2], ARGV[3]) and 1 or 0"),
  locate: probe('locate', `
local loc = locate(KEYS[1], tokensArg())
return { loc.path or false, loc.parent or false, loc.named or false }`),
  bump: probe('bump', "eventLog = { maxLen = 0 } commit('', KEYS[1], '', '', tonumber(ARGV[1]), tonumber(ARGV[2])) return redis.call('GET', KEYS[1])"),
  bumpTwice: probe('bump-twice', "eventLog = { maxLen = 0 } commit('', KEYS[1], '', '', tonumber(ARGV[1]), tonumber(ARGV[2])) commit('', KEYS[1], '', '') return redis.call('GET', KEYS[1])"),
  appendEntry: probe('append-entry', `
appendEntry(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), 'v', '1', 'c', '[]')
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
return { last[1], last[2][2], redis.call('PEXPIRETIME', KEYS[1]) }`)
}
const library = new FunctionLibrary(Object.values(probes))
const redis = await connectRedis()
const sender = nodeSender(redis)
await library.load(sender)
const call = <T>(unit: LuaUnit, keys: string[], args: string[]) => library.call<T>(sender, unit, keys, args)
const key = (label: string) => `lua-units:${label}:${randomUUID()}`

describe('skipValue: where the JSON value starting at a position ends, in RedisJSON\'s compact text', () => {
  it.each([
    ['1', 1, 2], ['123,4', 1, 4], ['-1.5e3}', 1, 7], ['true]', 1, 5], ['null,', 1, 5],
    ['"a"', 1, 4], ['"a\\"b",1', 1, 7], ['"\\\\"', 1, 5], ['"{[,]}"', 1, 8],
    ['{}', 1, 3], ['[]', 1, 3], ['{"a":[1,{"b":"]}"}]}', 1, 21], ['[[],[[]],{}]', 1, 13],
    ['{"a":1,"b":2}', 6, 7], ['{"a":1,"b":[2]}', 12, 15]
  ])('%s from %d ends before %d', async (text, from, end) => {
    expect(await call(probes.skipValue, [], [text, String(from)])).toBe(end)
  })
})

describe('membersOf: an object\'s members, names as written and values as text', () => {
  it.each([
    ['{}', []],
    ['{"a":1}', [['"a"', '1']]],
    ['{"a":{"b":[1,2]},"c":"}"}', [['"a"', '{"b":[1,2]}'], ['"c"', '"}"']]],
    ['{"q\\"":null," x":true,"":[]}', [['"q\\""', 'null'], ['" x"', 'true'], ['""', '[]']]]
  ])('%s', async (text, members) => {
    expect(await call(probes.membersOf, [], [text])).toEqual(members)
  })
})

describe('versionRecord: version, expiry, size and depth from a record', () => {
  it.each([
    [null, ['0', null, null, null]],
    ['7', ['7', null, null, null]],
    ['7:1700000000000', ['7', '1700000000000', null, null]],
    ['7::120:3', ['7', null, 120, 3]],
    ['7:1700000000000:120:', ['7', '1700000000000', 120, null]],
    ['not a record', ['0', null, null, null]]
  ])('%s', async (record, fields) => {
    const ver = key('version')
    if (record !== null) await redis.set(ver, record)
    expect(await call(probes.versionRecord, [ver], [])).toEqual(fields)
  })
})

describe('preconditionHolds: If-Match and If-None-Match against the current version', () => {
  it.each([
    [true, '', '', 1], [false, '', '', 1],
    [true, '5', '', 1], [true, '4', '', 0], [true, '4,5', '', 1], [true, '*', '', 1], [false, '*', '', 0], [false, '5', '', 0],
    [true, '', '5', 0], [true, '', '4', 1], [true, '', '*', 0], [false, '', '*', 1], [true, '', '4,5', 0],
    [true, '55', '', 0], [true, '5', '5', 0]
  ])('exists %s, If-Match %j, If-None-Match %j: %d', async (exists, ifMatch, ifNoneMatch, holds) => {
    const ver = key('precondition')
    await redis.set(ver, '5')
    expect(await call(probes.preconditions, [ver], [exists ? '1' : '0', ifMatch, ifNoneMatch])).toBe(holds)
  })
})

describe('locate: the RedisJSON path a pointer\'s tokens lead to, digits an index only in an array', () => {
  const document = JSON.stringify({ a: [{ b: 1 }], 0: { 1: 2 }, ' s': 1, q: { 'x"y': 1 } })
  it.each([
    [[], '$', null, null],
    [['a'], '$["a"]', '$', null],
    [['a', '0', 'b'], '$["a"][0]["b"]', '$["a"][0]', null],
    [['0', '1'], '$["0"]["1"]', '$["0"]', null],
    // A last token that is no index is a member step whatever the parent: in an array it matches nothing.
    [['a', '-'], '$["a"]["-"]', '$["a"]', null],
    [['a', 'x'], '$["a"]["x"]', '$["a"]', null],
    [['a', '5'], '$["a"][5]', '$["a"]', null],
    [[' s'], null, '$', '" s"'],
    [['q', 'x"y'], '$["q"][\'x"y\']', '$["q"]', null]
  ])('%j', async (tokens, path, parent, named) => {
    const doc = key('locate')
    await redis.sendCommand(['JSON.SET', doc, '$', document])
    expect(await call(probes.locate, [doc], pointerArgs(tokens))).toEqual([path, parent, named])
  })
})

describe('commit: a new version from the clock, keeping what the record says unless told', () => {
  it.each([
    [null, ['', ''], /^\d{16}$/],
    ['5:1700000000000', ['', ''], /^\d{16}:1700000000000$/],
    ['5::120:3', ['', ''], /^\d{16}::120:3$/],
    ['5::120:3', ['300', '4'], /^\d{16}::300:4$/],
    ['5::120:3', ['300', '-1'], /^\d{16}::300:$/]
  ])('%s with size and depth %j', async (record, [size, depth], after) => {
    const ver = key('bump')
    if (record !== null) await redis.set(ver, record)
    const written = await call<string>(probes.bump, [ver], [size!, depth!])
    expect(written).toMatch(after)
    expect(Number(written.split(':')[0])).toBeGreaterThan(Date.now() * 1000 - 60_000_000)
  })
})

describe('commit: twice in one call, from the record the first wrote', () => {
  it.each([
    [['300', '4'], /^\d{16}::300:4$/],
    [['300', '-1'], /^\d{16}::300:$/]
  ])('with size and depth %j', async ([size, depth], after) => {
    const ver = key('bump-twice')
    await redis.set(ver, '5::120:3')
    expect(await call<string>(probes.bumpTwice, [ver], [size!, depth!])).toMatch(after)
  })
})

describe('appendEntry: one entry naming the one before, time trimming and expiry once per slice', () => {
  const idMs = (id: string) => Number(id.split('-')[0])
  const append = (stream: string, maxLen: number, retentionMs: number) =>
    call<[string, string, number]>(probes.appendEntry, [stream], [String(maxLen), String(retentionMs)])

  it('keeps every stream alive a retention past its newest entry, and at most a quarter of it more', async () => {
    const stream = key('stream')
    const retentionMs = 400
    let before = '0-0'
    const started = Date.now()
    while (Date.now() - started < 600) {
      const [id, prev, expiresAt] = await append(stream, 1000, retentionMs)
      expect(prev).toBe(before)
      expect(expiresAt).toBeGreaterThanOrEqual(idMs(id) + retentionMs)
      expect(expiresAt).toBeLessThanOrEqual(idMs(id) + retentionMs * 1.25 + 1)
      before = id
    }
  })

  it('lets an idle stream go between the retention and a quarter more after its newest entry', async () => {
    const stream = key('idle')
    const retentionMs = 300
    const [id] = await append(stream, 1000, retentionMs)
    let gone = 0
    for (let polls = 0; polls < 200 && gone === 0; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      if (await redis.exists(stream) === 0) gone = Date.now()
    }
    expect(gone).toBeGreaterThanOrEqual(idMs(id) + retentionMs)
    expect(gone).toBeLessThanOrEqual(idMs(id) + retentionMs * 1.25 + 150)
  })

  it('trims entries past the retention at the next slice, and bounds the length on every entry', async () => {
    const stream = key('trim')
    const retentionMs = 200
    for (let i = 0; i < 250; i++) await append(stream, 100_000, retentionMs)
    const [first] = await redis.sendCommand<[[string]]>(['XRANGE', stream, '-', '+', 'COUNT', '1'])
    await new Promise((resolve) => setTimeout(resolve, retentionMs + 20))
    await append(stream, 100_000, retentionMs)
    const [oldest] = await redis.sendCommand<[[string]]>(['XRANGE', stream, '-', '+', 'COUNT', '1'])
    expect(oldest![0]).not.toBe(first![0])
    expect(await redis.xLen(stream)).toBeLessThan(100)

    const bounded = key('bounded')
    for (let i = 0; i < 400; i++) await append(bounded, 10, 3_600_000)
    expect(await redis.xLen(bounded)).toBeLessThan(150)
  })
})
