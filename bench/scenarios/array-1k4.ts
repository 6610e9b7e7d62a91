import { mixedArray } from '../fixtures.js'
import { readRow, writeRow, type Scenario } from './scenario.js'

const family = 'array-1k4'
const key = 'bench:array-1k4'

/** A ~1.4 kB array of mixed values: the whole of it, elements, and a member of an element. */
export function array1k4Scenario (): Scenario {
  const at = (name: string) => ({ family, name, key })
  return {
    family,
    title: '1.4 kB array',
    documents: { [key]: mixedArray() },
    rows: [
      readRow(at('get-root'), [], '.'),
      readRow(at('get-0'), ['0'], '[0]'),
      readRow(at('get-7'), ['7'], '[7]'),
      readRow(at('get-8-zero'), ['8', 'zero'], '[8].zero'),
      writeRow(at('set-0'), ['0'], '"foo"', '[0]')
    ]
  }
}
