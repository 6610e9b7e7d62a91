import { businessListing, searchResults } from '../fixtures.js'
import { readRow, writeRow, type Scenario } from './scenario.js'

const family = 'large-docs'
const KEY_18K = 'bench:doc-18k'
const KEY_40K = 'bench:doc-40k'

/** ~18 kB and ~40 kB documents: the whole document against one leaf, read and written. */
export function largeDocsScenario (): Scenario {
  const in18k = (name: string) => ({ family, name: `18k-${name}`, key: KEY_18K, document: '18 kB' })
  const in40k = (name: string) => ({ family, name: `40k-${name}`, key: KEY_40K, document: '40 kB' })
  const total = ['ResultSet', 'totalResultsAvailable']
  const code = ['message', 'code']
  return {
    family,
    title: '18 kB and 40 kB documents',
    documents: { [KEY_18K]: searchResults(), [KEY_40K]: businessListing() },
    rows: [
      readRow(in18k('get-root'), [], '.'),
      readRow(in18k('get-leaf'), total, 'ResultSet.totalResultsAvailable'),
      writeRow(in18k('set-leaf'), total, '1', 'ResultSet.totalResultsAvailable'),
      readRow(in40k('get-root'), [], '.'),
      readRow(in40k('get-leaf'), code, 'message.code'),
      writeRow(in40k('set-leaf'), code, '1', 'message.code')
    ]
  }
}
