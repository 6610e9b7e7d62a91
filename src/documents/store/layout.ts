import type { RedisClient } from '../../redis/plugin.js'
import { slotOf, tagOfSlot } from '../../redis/slots.js'
import { derivedKeysOf, VERSION_SUFFIX } from './context.js'
import { escapeGlob } from './reads.js'

/*
 * The storage layout, and its upgrade. Layout 1 kept a document's version record at
 * `<prefix><key>\x1fversion`, in a hash slot of its own; layout 2 keeps it beside the document
 * (derivedKeyOf), so that a Redis Cluster can run a document's scripts. Documents themselves keep their keys.
 */

const LAYOUT = '2'
const MARKER_SUFFIX = '\u001flayout'
const SCAN_COUNT = '1000'

/** Whether a version record's key, under keyPrefix, is of layout 2: `<prefix>{tag}<key>\x1fversion` with the tag of its document's slot. */
function isCurrent (keyPrefix: string, record: string): boolean {
  const rest = record.slice(keyPrefix.length)
  const close = rest.indexOf('}')
  if (!rest.startsWith('{') || close === -1) return false
  const key = rest.slice(close + 1, -VERSION_SUFFIX.length)
  return rest.slice(1, close) === tagOfSlot(slotOf(keyPrefix + key))
}

/**
 * Moves every version record of layout 1 under keyPrefix to layout 2 (RENAME keeps its time to live),
 * then marks the prefix as upgraded, so later starts only read the mark. Idempotent and resumable: a start
 * that stops halfway leaves records of both layouts, and the next moves the rest; instances starting at
 * once share the work (a record another moved first is skipped). Answers how many records it moved.
 */
export async function upgradeLayout (client: RedisClient, keyPrefix: string): Promise<number> {
  const marker = keyPrefix + MARKER_SUFFIX
  if (await client.get(marker) === LAYOUT) return 0
  let cursor = '0'
  let moved = 0
  do {
    const [next, records] = await client.sendCommand<[string, string[]]>(
      ['SCAN', cursor, 'MATCH', `${escapeGlob(keyPrefix)}*${VERSION_SUFFIX}`, 'COUNT', SCAN_COUNT, 'TYPE', 'string'])
    cursor = next
    const outdated = records.filter((record) => !isCurrent(keyPrefix, record))
    const renamed = await Promise.all(outdated.map((record) => {
      const key = record.slice(keyPrefix.length, -VERSION_SUFFIX.length)
      // A record written in layout 2 meanwhile is the newer: the old one is dropped.
      return client.sendCommand<number>(['RENAMENX', record, derivedKeysOf({ keyPrefix }, key, [VERSION_SUFFIX])[0]!])
        .then(async (done) => done === 1 || (await client.sendCommand<number>(['DEL', record]), false), () => false)
    }))
    moved += renamed.filter(Boolean).length
  } while (cursor !== '0')
  await client.set(marker, LAYOUT)
  return moved
}
