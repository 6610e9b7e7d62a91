import { sizedDocument, type Json } from '../fixtures.js'
import { readRow, type RowSpec, type Scenario } from './scenario.js'

const family = 'size-sweep'

/** Document sizes of the sweep, in bytes, with their labels. */
export const SWEEP_SIZES: Array<[bytes: number, label: string, shown: string]> = [
  [100, '100b', '100 B'], [1_000, '1kb', '1 kB'], [10_000, '10kb', '10 kB'], [100_000, '100kb', '100 kB'], [1_000_000, '1mb', '1 MB']
]

/** Leaf reads stay flat while whole-document reads grow with the document: what RedisJSON exists for. */
export function sizeSweepScenario (): Scenario {
  const documents: Record<string, Json> = {}
  const rows: RowSpec[] = []
  for (const [bytes, label, shown] of SWEEP_SIZES) {
    const key = `bench:size-${label}`
    documents[key] = sizedDocument(bytes)
    rows.push(readRow({ family, name: `leaf-${label}`, key, document: shown }, ['leaf'], 'leaf'))
    rows.push(readRow({ family, name: `root-${label}`, key, document: shown }, [], '.'))
  }
  return { family, title: 'Document size sweep (100 B to 1 MB)', documents, rows }
}
