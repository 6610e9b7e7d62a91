import { describe, expect, it } from 'vitest'
import { SseParser, type SseMessage } from '../../client/src/sse.js'
import { applyPatch } from '../../client/src/json-patch.js'
import { compareIds } from '../../client/src/live.js'

/** Every message of `chunks` fed in order. */
function parse (...chunks: string[]): SseMessage[] {
  const parser = new SseParser()
  return chunks.flatMap((chunk) => parser.feed(chunk))
}

describe('the SSE parser', () => {
  it.each<[string, string[], SseMessage[]]>([
    ['an event with an id', ['event: put\nid: 1-0\ndata: {"a":1}\n\n'], [{ event: 'put', id: '1-0', data: '{"a":1}' }]],
    ['data over many lines, joined by line feeds', ['data: a\ndata:b\ndata:  c\n\n'], [{ event: 'message', id: '', data: 'a\nb\n c' }]],
    ['CRLF, CR and LF line ends, mixed', ['event: x\r\ndata: 1\rid: 2\n\r\n'], [{ event: 'x', id: '2', data: '1' }]],
    ['a CRLF split between chunks', ['data: 1\r', '\n\r', '\n'], [{ event: 'message', id: '', data: '1' }]],
    ['a leading BOM, once', ['\uFEFFdata: \uFEFFx\n\n'], [{ event: 'message', id: '', data: '\uFEFFx' }]],
    ['comments (heartbeats) ignored', [': hi\n\n:\ndata: 1\n\n'], [{ event: 'message', id: '', data: '1' }]],
    ['a lone id: only a position', ['id: 5-0\n\n', 'event: put\ndata: 1\n\n'], [{ event: 'message', id: '5-0', data: undefined }, { event: 'put', id: '5-0', data: '1' }]],
    ['an id holding NUL ignored', ['id: 1\n\nid: a\0b\ndata: 1\n\n'], [{ event: 'message', id: '1', data: undefined }, { event: 'message', id: '1', data: '1' }]],
    ['a field without a colon, an unknown field', ['data\nfoo: bar\n\n'], [{ event: 'message', id: '', data: '' }]],
    ['an event cut at the end of the stream is not dispatched', ['data: 1\n\ndata: 2\n'], [{ event: 'message', id: '', data: '1' }]],
    ['one character at a time', [...'event: e\nid: 9\ndata: x\n\n'], [{ event: 'e', id: '9', data: 'x' }]]
  ])('%s', (_name, chunks, expected) => {
    expect(parse(...chunks)).toEqual(expected)
  })

  it('reads retry: when it is all digits', () => {
    const parser = new SseParser()
    parser.feed('retry: 1500\n\nretry: 1x\n\n')
    expect(parser.retry).toBe(1500)
  })
})

describe('patches and event ids', () => {
  it.each<[string, unknown, Parameters<typeof applyPatch>[1], unknown]>([
    ['replace and add members', { a: 1 }, [{ op: 'replace', path: '/a', value: 2 }, { op: 'add', path: '/b~1c', value: [] }], { a: 2, 'b/c': [] }],
    ['add into arrays, at an index and at the end', { x: [1, 3] }, [{ op: 'add', path: '/x/1', value: 2 }, { op: 'add', path: '/x/-', value: 4 }], { x: [1, 2, 3, 4] }],
    ['remove from arrays and objects', { x: [1, 2, 3], y: 1 }, [{ op: 'remove', path: '/x/0' }, { op: 'remove', path: '/y' }], { x: [2, 3] }],
    ['the whole value', { a: 1 }, [{ op: 'replace', path: '', value: [1] }], [1]],
    ['a member named __proto__ is a member', {}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }], JSON.parse('{"__proto__":{"polluted":true}}')]
  ])('%s', (_name, document, operations, expected) => {
    expect(applyPatch(structuredClone(document), operations)).toEqual(expected)
  })

  it('refuses what does not apply', () => {
    expect(() => applyPatch({ x: [] }, [{ op: 'remove', path: '/x/0' }])).toThrow()
    expect(() => applyPatch({}, [{ op: 'replace', path: '/a', value: 1 }])).toThrow()
    expect(() => applyPatch({}, [{ op: 'add', path: '/a/b', value: 1 }])).toThrow()
    expect(() => applyPatch({ x: [1] }, [{ op: 'add', path: '/x/01', value: 1 }])).toThrow()
  })

  it('orders event ids by time, sequence and slot', () => {
    expect(compareIds('1764252000000-1', '1764252000000-0')).toBeGreaterThan(0)
    expect(compareIds('1764252000000-10', '1764252000001-0')).toBeLessThan(0)
    expect(compareIds('5-0-2', '5-0-10')).toBeLessThan(0)
    expect(compareIds('5-0', '5-0')).toBe(0)
  })
})
