import type { SchemaStorage } from '../../collections/storage.js'
import { mirroredState } from '../../collections/storage.js'
import type { Redis } from '../../redis/redis.js'
import { slotOf, tagOfSlot } from '../../redis/slots.js'
import { derivedKeysOf, VERSION_SUFFIX } from './context.js'
import { escapeGlob } from './reads.js'

/*
 * The storage layout, and its upgrade. Layout 1 kept a document's version record at
 * `<prefix><key>\x1fversion`, in a hash slot of its own; layout 2 keeps it beside the document
 * (derivedKeysOf), so that a Redis Cluster can run a document's scripts. Layout 3 keeps collection schemas
 * beside the set of their names (one slot), with a mirror of each in every slot (see the collections'
 * storage). Documents themselves keep their keys. The layouts before 3 were only ever written to a single
 * Redis: on a cluster there is nothing to move. Layout 4 records events in one log per slot (the feed of
 * layout 3, `<prefix>\x1ffeed` on a single Redis), each entry naming its document's entry before it, whose id
 * the version record keeps as its fifth field; the per-document streams of layout 3 are no longer written
 * and expire on their own within the retention. Nothing moves.
 */

const LAYOUT = '4'
const MARKER_SUFFIX = '\u001flayout'
const SCAN_COUNT = '1000'
const OLD_SCHEMA_INFIX = '\u001fschema\u001f'

/** Whether a version record's key, under keyPrefix, is of layout 2: `<prefix>{tag}<key>\x1fversion` with the tag of its document's slot. */
function isCurrent (keyPrefix: string, record: string): boolean {
  const rest = record.slice(keyPrefix.length)
  const close = rest.indexOf('}')
  if (!rest.startsWith('{') || close === -1) return false
  const key = rest.slice(close + 1, -VERSION_SUFFIX.length)
  return rest.slice(1, close) === tagOfSlot(slotOf(keyPrefix + key))
}

/**
 * Brings the data under keyPrefix to the current layout, then marks the prefix as upgraded, so later
 * starts only read the mark. Idempotent and resumable: a start that stops halfway leaves both layouts, and
 * the next moves the rest; instances starting at once share the work (what another moved first is skipped).
 * Answers how many version records it moved.
 */
export async function upgradeLayout (redis: Redis, keyPrefix: string, schemas: SchemaStorage): Promise<number> {
  const marker = keyPrefix + MARKER_SUFFIX
  const layout = await redis.send<string | null>(marker, ['GET', marker])
  if (layout === LAYOUT) return 0
  const from = Number(layout ?? '1')
  const moved = redis.isCluster || from >= 2 ? 0 : await moveVersionRecords(redis, keyPrefix)
  if (from < 3) await mirrorSchemas(redis, keyPrefix, schemas)
  await redis.send(marker, ['SET', marker, LAYOUT])
  return moved
}

/** Layout 1 to 2: every version record to its document's slot (RENAME keeps its time to live). */
async function moveVersionRecords (redis: Redis, keyPrefix: string): Promise<number> {
  let cursor = '0'
  let moved = 0
  do {
    const [next, records] = await redis.send<[string, string[]]>(undefined,
      ['SCAN', cursor, 'MATCH', `${escapeGlob(keyPrefix)}*${VERSION_SUFFIX}`, 'COUNT', SCAN_COUNT, 'TYPE', 'string'])
    cursor = next
    const outdated = records.filter((record) => !isCurrent(keyPrefix, record))
    const renamed = await Promise.all(outdated.map((record) => {
      const key = record.slice(keyPrefix.length, -VERSION_SUFFIX.length)
      // A record written in layout 2 meanwhile is the newer: the old one is dropped.
      return redis.send<number>(record, ['RENAMENX', record, derivedKeysOf({ keyPrefix }, key, [VERSION_SUFFIX])[0]!])
        .then(async (done) => done === 1 || (await redis.send<number>(record, ['DEL', record]), false), () => false)
    }))
    moved += renamed.filter(Boolean).length
  } while (cursor !== '0')
  return moved
}

/** Layout 2 to 3: each schema beside the set of collections, and mirrored in every slot. */
async function mirrorSchemas (redis: Redis, keyPrefix: string, schemas: SchemaStorage): Promise<void> {
  const collections = (await schemas.names()).sort()
  if (!redis.isCluster) {
    await Promise.all(collections.map(async (collection) => {
      const old = keyPrefix + OLD_SCHEMA_INFIX + collection
      // A schema written in layout 3 meanwhile is the newer: the old one is dropped.
      if (await redis.send<number>(old, ['RENAMENX', old, schemas.keyOf(collection)]) === 0) await redis.send(old, ['DEL', old])
    }).map((done) => done.catch((error: unknown) => {
      if (!(error instanceof Error) || !/no such key/i.test(error.message)) throw error
    })))
  }
  const states = await Promise.all(collections.map(async (collection) => [collection, mirroredState(await schemas.state(collection))]))
  if (states.length > 0) await schemas.mirror(states.flat())
}
