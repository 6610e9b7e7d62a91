import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { batchPutScript } from '../../src/documents/scripts/batch.js'
import { operationsScript } from '../../src/documents/scripts/operations.js'
import { jsonPatchScript } from '../../src/documents/scripts/patch.js'
import type { GuardedScript, WriteFeed, WriteGuard, WriteHead } from '../../src/documents/scripts/guarded-write.js'
import { describeScript, queryScript, readScript } from '../../src/documents/scripts/reads.js'
import { deleteScript, expiryScript, mergeScript, putScript } from '../../src/documents/scripts/writes.js'
import { feedPointer } from '../../src/documents/store/context.js'
import { buildTestApp } from '../helpers/app.js'

/*
 * Each document script called with FCALL on the real Redis through its protocol: a table of documents
 * before, calls, the parsed replies and the documents after.
 */

const app = await buildTestApp()
const redis = app.redis

/** Keys of one slot (a hash tag of their own) for a call's document, its version record and the rest. */
function keysFor () {
  const tag = `${app.keyPrefix}{${randomUUID()}}`
  return { doc: `${tag}doc`, ver: `${tag}ver`, work: `${tag}work`, scratch: `${tag}scratch`, mirror: `${tag}mirror`, copyKey: `${tag}copy`, log: `${tag}log` }
}

async function stored (key: string): Promise<unknown> {
  const text = await redis.send<string | null>(key, ['JSON.GET', key])
  return text === null ? undefined : JSON.parse(text)
}

const head: WriteHead = { ifMatch: '', ifNoneMatch: '', wantValue: true, ttl: undefined, tokens: [] }
const guard: WriteGuard = {
  collection: '', schemaGuard: '-', base: '', previewing: false, growth: undefined, depthAfter: undefined, sizing: 'add', maxBytes: 1_000_000, maxWork: 1_000_000
}

const feed: WriteFeed = { location: '""', logMaxLen: 100, retentionMs: 60_000, maxEntryBytes: 16384 }

/** Writes before (JSON, or a string key when 'string'), runs the script, answers its reply and the document after. */
async function written<Op, V> (script: GuardedScript<Op, V>, before: unknown, call: Partial<WriteHead & WriteGuard> & Op) {
  const keys = keysFor()
  if (before === 'string') await redis.send(keys.doc, ['SET', keys.doc, 'x'])
  else if (before !== undefined) await redis.send(keys.doc, ['JSON.SET', keys.doc, '$', JSON.stringify(before)])
  const reply = await script.run(redis, keys, { ...head, ...guard, ...feed, location: feedPointer(call.tokens ?? head.tokens), ...call })
  return { reply, after: before === 'string' ? 'string' : await stored(keys.doc), keys }
}

describe('put', () => {
  it.each<[string, unknown, Partial<WriteHead>, string, object, unknown]>([
    ['creates a document', undefined, { ifNoneMatch: '*' }, '{"a":1}', { status: 'created', value: '{"a":1}' }, { a: 1 }],
    ['replaces a member', { a: 1 }, { tokens: ['a'] }, '2', { status: 'ok', value: '2' }, { a: 2 }],
    ['adds a member no path can name', { a: 1 }, { tokens: [' s'] }, '3', { status: 'created', value: '3' }, { a: 1, ' s': 3 }],
    ['sets an element by index', { a: [1, 2] }, { tokens: ['a', '1'] }, '5', { status: 'ok', value: '5' }, { a: [1, 5] }],
    ['misses below a missing parent', { a: 1 }, { tokens: ['b', 'c'] }, '1', { status: 'notfound' }, { a: 1 }],
    ['keeps a document If-None-Match: *', { a: 1 }, { ifNoneMatch: '*' }, '{}', { status: 'precondition' }, { a: 1 }],
    ['refuses a key of another type', 'string', {}, '{}', { status: 'wrongtype' }, 'string']
  ])('%s', async (_, before, call, value, reply, after) => {
    const result = await written(putScript, before, { ...call, value })
    expect(result.reply).toMatchObject(reply)
    expect(result.after).toEqual(after)
  })

  it('answers a version from the clock, and the expiry it sets', async () => {
    const { reply } = await written(putScript, undefined, { value: '1', ttl: 60_000 })
    expect(reply).toMatchObject({ status: 'created', version: expect.stringMatching(/^\d{16}$/) })
    expect((reply as { expiresAt: number }).expiresAt).toBeGreaterThan(Date.now())
  })
})

describe('the write guard', () => {
  it.each<[string, Partial<WriteGuard>, (keys: ReturnType<typeof keysFor>) => Promise<unknown>, object, unknown]>([
    ['previews on a copy, leaving the document', { previewing: true }, async () => {},
      { status: 'preview', outcome: 'ok', base: '0', document: '{"a":2}' }, { a: 1 }],
    ['refuses a write validated against another version', { base: '5' }, async () => {}, { status: 'stale' }, { a: 1 }],
    ['refuses a write validated against an older schema', { collection: 'c', schemaGuard: '1:x' },
      async (keys) => await redis.send(keys.mirror, ['HSET', keys.mirror, 'c', '2:y']), { status: 'schemachanged' }, { a: 1 }],
    ['refuses a document past the longest', { maxBytes: 5 }, async () => {}, { status: 'toolarge', size: 7 }, { a: 1 }]
  ])('%s', async (_, call, prepare, reply, after) => {
    const keys = keysFor()
    await redis.send(keys.doc, ['JSON.SET', keys.doc, '$', '{"a":1}'])
    await prepare(keys)
    expect(await putScript.run(redis, keys, { ...head, ...guard, ...feed, ...call, tokens: ['a'], location: '"/a"', value: '2' })).toEqual(reply)
    expect(await stored(keys.doc)).toEqual(after)
  })
})

describe('merge', () => {
  it.each<[string, unknown, string[], string, boolean, object, unknown]>([
    ['merges into an object', { a: { b: 1 } }, ['a'], '{"b":null,"c":2}', true, { status: 'ok' }, { a: { c: 2 } }],
    ['merges into an empty object where there was none', { a: 1 }, ['x'], '{"b":null,"c":1}', true, { status: 'created' }, { a: 1, x: { c: 1 } }],
    ['replaces with a scalar', { a: { b: 1 } }, ['a'], '3', false, { status: 'ok' }, { a: 3 }],
    ['misses a missing document', undefined, [], '{}', true, { status: 'notfound' }, undefined]
  ])('%s', async (_, before, tokens, patch, patchIsObject, reply, after) => {
    const result = await written(mergeScript, before, { tokens, patch, patchIsObject })
    expect(result.reply).toMatchObject(reply)
    expect(result.after).toEqual(after)
  })
})

describe('delete', () => {
  it.each<[string, unknown, string[], object, unknown]>([
    ['removes an element', { a: [1, 2] }, ['a', '0'], { status: 'ok' }, { a: [2] }],
    ['removes a member no path can name', { ' s': 1, b: 2 }, [' s'], { status: 'ok' }, { b: 2 }],
    ['removes the document', { a: 1 }, [], { status: 'ok' }, undefined],
    ['misses what is not there', { a: 1 }, ['b'], { status: 'notfound' }, { a: 1 }]
  ])('%s', async (_, before, tokens, reply, after) => {
    const result = await written(deleteScript, before, { tokens, wantValue: false, sizing: tokens.length === 0 ? 'keep' : 'add' })
    expect(result.reply).toMatchObject(reply)
    expect(result.after).toEqual(after)
  })
})

describe('expiry', () => {
  it.each<[string, number | undefined, boolean]>([
    ['sets a time to live', 60_000, true],
    ['reads none', undefined, false],
    ['removes none', 0, false]
  ])('%s', async (_, ttl, expires) => {
    const { reply, keys } = await written(expiryScript, { a: 1 }, { ttl, wantValue: false, sizing: 'keep' })
    expect(reply).toMatchObject({ status: 'ok', version: expect.stringMatching(/^\d+$/) })
    expect('expiresAt' in reply).toBe(expires)
    expect(await redis.send<number>(keys.doc, ['PTTL', keys.doc]) > 0).toBe(expires)
  })
})

describe('JSON Patch', () => {
  const op = (name: string, path: string[], value = '', from: string[] = [], invalid = '') =>
    ({ name, invalid, value, path, from, pathPointer: feedPointer(path), fromPointer: feedPointer(from) })
  it.each<[string, unknown, ReturnType<typeof op>[], object, unknown]>([
    ['adds and removes', { a: [1] }, [op('add', ['a', '-'], '2'), op('remove', ['a', '0'])], { status: 'ok' }, { a: [2] }],
    ['moves a member', { a: 1 }, [op('move', ['b'], '', ['a'])], { status: 'ok' }, { b: 1 }],
    ['tests a value equal in another order', { a: { x: 1, y: 2 } }, [op('test', ['a'], '{"y":2,"x":1}')], { status: 'ok' }, { a: { x: 1, y: 2 } }],
    ['fails all at the first that cannot apply', { a: 1 }, [op('add', ['b'], '1'), op('remove', ['c'])],
      { status: 'failed', index: 1, reason: 'no value at the path' }, { a: 1 }],
    ['fails an operation invalid whatever the document', { a: 1 }, [op('move', ['a', 'b'], '', ['a'], 'into its own child')],
      { status: 'failed', index: 0, reason: 'into its own child' }, { a: 1 }]
  ])('%s', async (_, before, operations, reply, after) => {
    const result = await written(jsonPatchScript, before, { operations })
    expect(result.reply).toMatchObject(reply)
    expect(result.after).toEqual(after)
  })
})

describe('operations', () => {
  const op = (name: string, path: string[], a = '', values: string[] = []) => ({ name, path, a, b: '', c: '', values, pointer: feedPointer(path) })
  it.each<[string, unknown, ReturnType<typeof op>[], object, unknown]>([
    ['increments', { n: 1 }, [op('incr', ['n'], '2')], { status: 'ok', value: ['3'] }, { n: 3 }],
    ['applies several in order', { a: [1] }, [op('push', ['a'], '', ['2', '"x"']), op('pop', ['a'], '0')],
      { status: 'ok', value: ['3', '1'] }, { a: [2, 'x'] }],
    ['fails on a value of another type', { s: 'x' }, [op('incr', ['s'], '1')], { status: 'failed', index: 0, reason: 'type', detail: 'string' }, { s: 'x' }],
    ['fails on a missing value', { a: 1 }, [op('toggle', ['b'])], { status: 'failed', index: 0, reason: 'notfound', detail: '' }, { a: 1 }]
  ])('%s', async (_, before, operations, reply, after) => {
    const result = await written(operationsScript, before, { operations, wantValue: false })
    expect(result.reply).toMatchObject(reply)
    expect(result.after).toEqual(after)
  })
})

describe('batch put', () => {
  const item = { ifMatch: '', ifNoneMatch: '', ttl: undefined, collection: '', guard: '-', value: '{"a":1}', size: 7, depth: 1 }
  it.each<[string, Array<Partial<typeof item>>, unknown]>([
    ['writes every item', [{}, { value: '[1]', size: 3 }], { status: 'done', items: [{ status: 'created' }, { status: 'created' }] }],
    ['fails an item alone', [{ ifMatch: '*' }, {}], { status: 'done', items: [{ status: 'precondition' }, { status: 'created' }] }],
    ['measures an item past the longest', [{ value: '"' + 'x'.repeat(80) + '"', size: 100 }],
      { status: 'done', items: [{ status: 'toolarge', size: 82 }] }],
    ['writes nothing when a schema changed', [{}, { collection: 'c', guard: '1:x' }], { status: 'schemachanged' }]
  ])('%s', async (_, items, reply) => {
    const { mirror, scratch, log } = keysFor()
    const tag = mirror.slice(0, -'mirror'.length)
    await redis.send(mirror, ['HSET', mirror, 'c', '2:y'])
    const documents = items.map((_, index) => ({ doc: `${tag}doc${index}`, ver: `${tag}ver${index}` }))
    const answer = await batchPutScript.run(redis, { mirror, scratch, log, documents }, {
      maxBytes: 60, logMaxLen: 100, retentionMs: 60_000, maxEntryBytes: 16384, items: items.map((changed) => ({ ...item, ...changed }))
    })
    expect(answer).toMatchObject(reply as object)
  })
})

describe('the reads', () => {
  const document = { a: [{ b: 1 }], 0: { 1: 'x' }, ' s': true }
  const read = async (script: typeof readScript | typeof describeScript, tokens: string[], maxWork = 1_000_000) => {
    const keys = keysFor()
    await redis.send(keys.doc, ['JSON.SET', keys.doc, '$', JSON.stringify(document)])
    return await script.run(redis, { doc: keys.doc, ver: keys.ver }, { tokens, maxWork })
  }

  it.each<[string[], object]>([
    [['a', '0', 'b'], { status: 'ok', version: '0', value: '1' }],
    [['0', '1'], { status: 'ok', value: '"x"' }],
    [[' s'], { status: 'ok', value: 'true' }],
    [['a', '1'], { status: 'notfound' }]
  ])('read %j', async (tokens, reply) => {
    expect(await read(readScript, tokens)).toMatchObject(reply)
  })

  it.each<[string[], object]>([
    [['a'], { status: 'ok', value: ['array', 1, expect.any(Number), null] }],
    [['0'], { status: 'ok', value: ['object', 1, expect.any(Number), ['1']] }],
    [['b'], { status: 'notfound' }]
  ])('describe %j', async (tokens, reply) => {
    expect(await read(describeScript, tokens)).toMatchObject(reply)
  })

  it.each<[string, { path: string, multiple: boolean, maxValues?: number, maxReply?: number }, object]>([
    ['matches', { path: '$.a[*].b', multiple: true }, { status: 'ok', value: '[1]' }],
    ['estimates past the most values', { path: '$..b', multiple: true, maxValues: 1 }, { status: 'toocostly', estimate: expect.any(String) }],
    ['measures past the longest reply', { path: '$.a', multiple: false, maxReply: 3 }, { status: 'toolarge', size: 11 }],
    ['passes on RedisJSON\'s refusal', { path: '$[', multiple: false }, { status: 'badpath', message: expect.any(String) }]
  ])('query %s', async (_, { path, multiple, maxValues = 1000, maxReply = 1000 }, reply) => {
    const keys = keysFor()
    await redis.send(keys.doc, ['JSON.SET', keys.doc, '$', JSON.stringify(document)])
    expect(await queryScript.run(redis, { doc: keys.doc, ver: keys.ver }, {
      path, descents: path.includes('..') ? 1 : 0, filters: 0, multiple, maxValues, maxReply
    })).toMatchObject(reply)
  })
})
