import { businessListing, nestedObject } from '../fixtures.js'
import { readRow, type Scenario } from './scenario.js'

const family = 'cached'
const SMALL_KEY = 'bench:cached-380b'
const LARGE_KEY = 'bench:cached-40k'

/** Reads served by a second service started with client-side caching on (CACHE_MAX_ENTRIES > 0). */
export function cachedReadsScenario (): Scenario {
  const small = (name: string) => ({ family, name: `380b-${name}`, key: SMALL_KEY, target: 'cached' as const, document: '380 B' })
  const large = (name: string) => ({ family, name: `40k-${name}`, key: LARGE_KEY, target: 'cached' as const, document: '40 kB' })
  return {
    family,
    title: 'Cached reads (client-side caching on)',
    documents: { [SMALL_KEY]: nestedObject(), [LARGE_KEY]: businessListing() },
    rows: [
      readRow(small('get-root'), [], '.'),
      readRow(small('get-sclr'), ['sclr'], 'sclr'),
      readRow(large('get-root'), [], '.'),
      readRow(large('get-leaf'), ['message', 'code'], 'message.code')
    ]
  }
}
