import { expect } from 'vitest'
import { compareIds } from '../../src/live/feed.js'

/**
 * Asserts that a prefix stream's events came as their writes were made: in that order on one Redis; on a
 * cluster, where writes to different slots in one millisecond come in slot order (docs/live.md), each
 * document's events in the order of its writes, and all of them in the order of their ids.
 */
export function expectWriteOrder<T> (got: readonly T[], expected: readonly T[], options: {
  keyOf: (event: T) => string
  ids: readonly string[]
  onCluster: boolean
}): void {
  if (!options.onCluster) {
    expect(got).toEqual(expected)
    return
  }
  const byDocument = (events: readonly T[]) => [...events].sort((a, b) => options.keyOf(a).localeCompare(options.keyOf(b)))
  expect(byDocument(got)).toEqual(byDocument(expected))
  expect(options.ids).toEqual([...options.ids].sort(compareIds))
}
