import { nestedObject } from '../fixtures.js'
import { readRow, writeRow, type Scenario } from './scenario.js'

const family = 'object-380b'
const key = 'bench:object-380b'

/** A ~380 B nested object read at every depth, and one scalar written. */
export function object380bScenario (): Scenario {
  const at = (name: string) => ({ family, name, key })
  return {
    family,
    title: '380 B nested object',
    documents: { [key]: nestedObject() },
    rows: [
      readRow(at('get-root'), [], '.'),
      readRow(at('get-sclr'), ['sclr'], 'sclr'),
      readRow(at('get-sub_doc'), ['sub_doc'], 'sub_doc'),
      readRow(at('get-sub_doc-sclr'), ['sub_doc', 'sclr'], 'sub_doc.sclr'),
      readRow(at('get-array_of_docs'), ['array_of_docs'], 'array_of_docs'),
      readRow(at('get-array_of_docs-1'), ['array_of_docs', '1'], 'array_of_docs[1]'),
      readRow(at('get-array_of_docs-1-sclr'), ['array_of_docs', '1', 'sclr'], 'array_of_docs[1].sclr'),
      writeRow(at('set-sclr'), ['sclr'], '1', 'sclr')
    ]
  }
}
