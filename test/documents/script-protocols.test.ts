import { describe, expect, it } from 'vitest'
import { batchPutScript } from '../../src/documents/scripts/batch.js'
import { operationsScript } from '../../src/documents/scripts/operations.js'
import { jsonPatchScript } from '../../src/documents/scripts/patch.js'
import { type WriteFeed, type WriteGuard, type WriteHead } from '../../src/documents/scripts/guarded-write.js'
import { documentReply, jsonText } from '../../src/documents/scripts/protocol.js'
import { describeScript, queryScript, readScript } from '../../src/documents/scripts/reads.js'
import { deleteScript, expiryScript, mergeScript, putScript } from '../../src/documents/scripts/writes.js'

/*
 * What each document script is called with, without Redis: its keys in the slots its Lua binds, its
 * arguments in the order its Lua reads them, and its replies parsed.
 */

const writeKeys = { doc: 'd', ver: 'v', work: 'w', scratch: 's', mirror: 'm', copyKey: 'c', log: 'l' }
const head: WriteHead = { ifMatch: '"1","2"', ifNoneMatch: '', wantValue: true, ttl: undefined, tokens: ['a', '0'] }
const guard: WriteGuard = {
  collection: 'people', schemaGuard: '3:4', base: '', previewing: false, growth: 10, depthAfter: undefined, sizing: 'add', maxBytes: 100, maxWork: 200
}
const headStrings = ['"1","2"', '', '1', '', '2', '["a"]', '', '["0"]', '0']
const guardStrings = ['people', '3:4', '', '0', '10', '', 'add', '100', '200']
const feed: WriteFeed = { location: '"/a/0"', logMaxLen: 5000, retentionMs: 60000, maxEntryBytes: 16384 }
const feedStrings = ['"/a/0"', '5000', '60000', '16384']

describe('a single-document write: its keys, the head, the guard, the feed\'s, then its own arguments', () => {
  it.each<[string, { encode: (keys: typeof writeKeys, args: never) => unknown }, object, string[]]>([
    ['put', putScript.protocol, { value: '{"x":1}' }, ['{"x":1}']],
    ['merge of an object', mergeScript.protocol, { patch: '{"x":null}', patchIsObject: true }, ['{"x":null}', '1']],
    ['merge of a scalar', mergeScript.protocol, { patch: '3', patchIsObject: false }, ['3', '0']],
    ['delete', deleteScript.protocol, {}, []],
    ['expiry', expiryScript.protocol, {}, []],
    ['a JSON Patch', jsonPatchScript.protocol, {
      operations: [
        { name: 'add', invalid: '', value: '1', path: ['a', '-'], from: [], pathPointer: '"/a/-"', fromPointer: '""' },
        { name: 'move', invalid: 'into its own child', value: '', path: [' s'], from: ['a'], pathPointer: '"/ s"', fromPointer: '"/a"' }
      ]
    }, ['2', 'add', '', '1', '2', '["a"]', '', '["-"]', '-', '0', '"/a/-"', '""', 'move', 'into its own child', '', '1', '', '" s"', '1', '["a"]', '',
      '"/ s"', '"/a"']],
    ['no operations', operationsScript.protocol, { operations: [] }, ['0']],
    ['operations', operationsScript.protocol, {
      operations: [
        { name: 'incr', path: ['n'], a: '2', b: '', c: '', values: [], pointer: '"/n"' },
        { name: 'push', path: [], a: '', b: '', c: '', values: ['1', '"x"'], pointer: '""' }
      ]
    }, ['2', 'incr', '1', '["n"]', '', '2', '', '', '0', '"/n"', 'push', '0', '', '', '', '2', '1', '"x"', '""']]
  ])('%s', (_, declared, own, strings) => {
    expect(declared.encode(writeKeys, { ...head, ...guard, ...feed, ...own } as never)).toEqual({
      keys: ['d', 'v', 'w', 's', 'm', 'c', 'l'], args: [...headStrings, ...guardStrings, ...feedStrings, ...strings]
    })
  })

  it.each<[string, Partial<WriteHead & WriteGuard>, string[]]>([
    ['a ttl', { ttl: 5000 }, ['"1","2"', '', '1', '5000']],
    ['no ttl', { ttl: 0, wantValue: false }, ['"1","2"', '', '0', '0']]
  ])('carries %s as the Lua reads it: nothing, 0 or milliseconds', (_, changed, strings) => {
    expect(putScript.protocol.encode(writeKeys, { ...head, ...guard, ...feed, ...changed, value: '1' }).args.slice(0, 4)).toEqual(strings)
  })

  it('carries a preview, a base version and a sizing that keeps the document', () => {
    const args = deleteScript.protocol.encode(writeKeys, {
      ...head, ...guard, ...feed, base: 'absent', previewing: true, growth: undefined, depthAfter: undefined, sizing: 'keep'
    }).args
    expect(args.slice(headStrings.length)).toEqual(['people', '3:4', 'absent', '1', '', '', 'keep', '100', '200', ...feedStrings])
  })

  it('refuses a limit that is not a number', () => {
    expect(() => putScript.protocol.encode(writeKeys, { ...head, ...guard, ...feed, maxBytes: NaN, value: '1' })).toThrow(RangeError)
  })
})

describe('a batch: the slot\'s keys, then each document\'s, and per item its arguments', () => {
  it.each<[string, Array<{ doc: string, ver: string }>, string[], string[]]>([
    ['one item', [{ doc: 'd1', ver: 'v1' }], ['m', 's', 'l', 'd1', 'v1'], ['1000', '7', '5', '9', '1', '*', '', '', 'c', '-', '{}', '2', '1']],
    ['two items', [{ doc: 'd1', ver: 'v1' }, { doc: 'd2', ver: 'v2' }], ['m', 's', 'l', 'd1', 'v1', 'd2', 'v2'],
      ['1000', '7', '5', '9', '2', '*', '', '', 'c', '-', '{}', '2', '1', '*', '', '', 'c', '-', '{}', '2', '1']]
  ])('%s', (_, documents, keys, args) => {
    const item = { ifMatch: '*', ifNoneMatch: '', ttl: undefined, collection: 'c', guard: '-', value: '{}', size: 2, depth: 1 }
    expect(batchPutScript.protocol.encode({ mirror: 'm', scratch: 's', log: 'l', documents }, { maxBytes: 1000, logMaxLen: 7, retentionMs: 5, maxEntryBytes: 9, items: documents.map(() => item) }))
      .toEqual({ keys, args })
  })

  it.each<[string, unknown, unknown]>([
    ['a schema that changed', ['schemachanged'], { status: 'schemachanged' }],
    ['every status', [['created', '17'], ['ok', '18'], ['precondition', null], ['wrongtype', false], ['toolarge', '2048']], {
      status: 'done',
      items: [
        { status: 'created', version: '17' }, { status: 'ok', version: '18' }, { status: 'precondition' }, { status: 'wrongtype' },
        { status: 'toolarge', size: 2048 }
      ]
    }]
  ])('parses the reply of %s', (_, raw, parsed) => {
    expect(batchPutScript.protocol.decode(raw)).toEqual(parsed)
  })
})

describe('the reads: the document, its version record, the location and the limits', () => {
  it.each([
    ['read', readScript.protocol],
    ['describe', describeScript.protocol]
  ])('%s', (_, declared) => {
    expect(declared.encode({ doc: 'd', ver: 'v' }, { tokens: ['0', ' s'], maxWork: 4096 }))
      .toEqual({ keys: ['d', 'v'], args: ['2', '["0"]', '0', '', '" s"', '4096'] })
    expect(declared.encode({ doc: 'd', ver: 'v' }, { tokens: [], maxWork: 1 })).toEqual({ keys: ['d', 'v'], args: ['0', '1'] })
  })

  it('query: the JSONPath, its shape and its limits, each in its own slot', () => {
    expect(queryScript.protocol.encode({ doc: 'd', ver: 'v' }, {
      path: '$..a[?(@.b>1)]', descents: 1, filters: 1, multiple: true, maxValues: 100000, maxReply: 65536
    })).toEqual({ keys: ['d', 'v'], args: ['$..a[?(@.b>1)]', '1', '1', '1', '100000', '65536'] })
    expect(queryScript.protocol.cursor).toBe(false)
  })
})

describe('a document script\'s reply, parsed by its status', () => {
  const parse = documentReply(jsonText)
  it.each<[unknown, unknown]>([
    [['ok', '17', '{"a":1}', null], { status: 'ok', version: '17', value: '{"a":1}' }],
    [['created', '17', false, '1700000000000'], { status: 'created', version: '17', expiresAt: 1700000000000 }],
    [['ok', false, false, false], { status: 'ok' }],
    [['ok', '17', '""', null], { status: 'ok', version: '17', value: '""' }],
    [['notfound'], { status: 'notfound' }],
    [['precondition'], { status: 'precondition' }],
    [['wrongtype'], { status: 'wrongtype' }],
    [['stale'], { status: 'stale' }],
    [['schemachanged'], { status: 'schemachanged' }],
    [['toocostly'], { status: 'toocostly' }],
    [['toocostly', '123456'], { status: 'toocostly', estimate: '123456' }],
    [['toolarge', 2049], { status: 'toolarge', size: 2049 }],
    [['preview', 'created', 'absent', '{"a":1}'], { status: 'preview', outcome: 'created', base: 'absent', document: '{"a":1}' }],
    [['preview', 'ok', '17', false], { status: 'preview', outcome: 'ok', base: '17' }],
    [['failed', 2, 'the array index is out of range'], { status: 'failed', index: 2, reason: 'the array index is out of range', detail: '' }],
    [['failed', 0, 'type', 'string'], { status: 'failed', index: 0, reason: 'type', detail: 'string' }],
    [['badpath', 'ERR syntax'], { status: 'badpath', message: 'ERR syntax' }]
  ])('%j', (raw, parsed) => {
    expect(parse(raw)).toEqual(parsed)
  })

  it('parses the value of operations as the results of each', () => {
    expect(operationsScript.protocol.decode(['ok', '9', ['3', 1, 'true'], null])).toEqual({ status: 'ok', version: '9', value: ['3', '1', 'true'] })
  })
})
