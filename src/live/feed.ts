import { redisCall } from '../redis/deadline.js'
import type { CommandSender } from '../redis/redis.js'
import type { Change } from './changes.js'
import { KEPT_CHANGES_SUFFIX } from '../documents/scripts/prelude.js'

/** One entry of the event log: one write's changes, the version it made ('' when it removed the document). */
export interface FeedEntry {
  id: string
  /** The id of the entry before it in the log, '0-0' for the first: a reader that last saw another missed some. */
  prev: string
  /** The id of the same document's entry before it, '0-0' for none (entries of earlier releases lack it). */
  docPrev?: string
  version: string
  changes: Change[]
  /** The Redis key of the document written (the service's KEY_PREFIX, then its key). */
  redisKey?: string
  /** The whole document the write made, when its changes were longer (see eventAt). */
  whole?: unknown
  /** The write's changes were longer than EVENTS_MAX_ENTRY_BYTES: their id in the stream kept beside the log (see loadKeptChanges). */
  kept?: string
  /** The write's changes are not known: no longer kept beside the log, or left out by an earlier release. */
  omitted?: true
}

/** Entries one read of a stream takes at most. */
export const FEED_PAGE = 100

/** The id before every entry: a stream that had none when a subscriber started. */
export const FEED_START = '0-0'

/** A stream entry id, `<ms>-<seq>`, or on a cluster's feeds one naming its slot too: `<ms>-<seq>-<slot>`. */
const STREAM_ID = /^(\d{1,20})-(\d{1,20})(?:-(\d{1,5}))?$/

/** Whether text is a stream entry id (`<ms>-<seq>`), or with `withSlot` one of a cluster's feeds (`<ms>-<seq>-<slot>` too). */
export function isEntryId (text: string, withSlot = false): boolean {
  const parts = STREAM_ID.exec(text)
  return parts !== null && (parts[3] === undefined || (withSlot && Number(parts[3]) < 16384))
}

/** Compares two entry ids: negative, zero or positive. An id without a slot comes before the same id with any. */
export function compareIds (a: string, b: string): number {
  const [, aMs, aSeq, aSlot] = STREAM_ID.exec(a)!
  const [, bMs, bSeq, bSlot] = STREAM_ID.exec(b)!
  const ms = BigInt(aMs!) - BigInt(bMs!)
  if (ms !== 0n) return ms < 0n ? -1 : 1
  const seq = BigInt(aSeq!) - BigInt(bSeq!)
  if (seq !== 0n) return seq < 0n ? -1 : 1
  return Math.sign((aSlot === undefined ? -1 : Number(aSlot)) - (bSlot === undefined ? -1 : Number(bSlot)))
}

/**
 * The id a stream starts from when its document had no entries: before every entry (its time 0), its
 * sequence the instant it was read, so that a client resuming from it long after is told to start again.
 */
export function emptyMark (now: number): string {
  return `0-${now}`
}

/** How far past this instance's clock a resume point may be (Redis' clocks may run ahead of it); beyond, it is no entry. */
export const FUTURE_MS = 60_000

/** Whether a client's resume point may still name an entry kept: not past the retention, nor from beyond the clocks' skew. */
export function resumable (id: string, retentionMs: number, now = Date.now()): boolean {
  return idTime(id) >= now - retentionMs && idTime(id) <= now + FUTURE_MS
}

/** When the entry of this id was written (the milliseconds part, by its Redis' clock), or an empty mark read. */
export function idTime (id: string): number {
  const [, ms, seq] = STREAM_ID.exec(id)!
  return ms === '0' ? Number(seq) : Number(ms)
}

/** Whether an entry comes right after the one of id `last` (or is the first of a stream read empty at `last`). */
export function follows (entry: FeedEntry, last: string): boolean {
  return entry.prev === last || (entry.prev === FEED_START && last.startsWith('0-'))
}

/** Entries as XRANGE and XREAD answer them: [id, [field, value, ...]]. Changes are parsed when first read. */
export function parseEntries (raw: ReadonlyArray<[string, string[]]>): FeedEntry[] {
  return raw.map(([id, fields]) => {
    const entry: FeedEntry = { id, prev: FEED_START, version: '', changes: [] }
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const value = fields[index + 1]!
      switch (fields[index]) {
        case 'prev': entry.prev = value; break
        case 'p': entry.docPrev = value; break
        case 'v': entry.version = value; break
        case 'c': lazily(entry, 'changes', value); break
        case 'w': lazily(entry, 'whole', value); break
        case 'k': entry.redisKey = value; break
        // '1': an entry of an earlier release, which kept no changes too long for it.
        case 'o': if (value === '1') entry.omitted = true; else entry.kept = value; break
      }
    }
    return entry
  })
}

/** Makes entry[name] the value of JSON text, parsed when first read: most entries a reader reads are of documents nobody follows. */
function lazily (entry: FeedEntry, name: 'changes' | 'whole', json: string): void {
  Object.defineProperty(entry, name, {
    configurable: true,
    enumerable: true,
    get () {
      const value: unknown = JSON.parse(json)
      Object.defineProperty(entry, name, { value, enumerable: true, writable: true })
      return value
    }
  })
}

/**
 * Gives an entry whose changes were kept beside its log those changes, or marks them omitted when they are
 * no longer kept (more were written since than the log keeps: see keepChanges).
 */
export async function loadKeptChanges (redis: CommandSender, log: string, entry: FeedEntry, timeoutMs: number): Promise<void> {
  if (entry.kept === undefined) return
  const stream = log + KEPT_CHANGES_SUFFIX
  const [found] = await redisCall(redis.send<Array<[string, string[]]>>(stream, ['XRANGE', stream, entry.kept, entry.kept]), timeoutMs)
  const changes = found?.[1][3]
  if (changes === undefined) entry.omitted = true
  else lazily(entry, 'changes', changes)
  delete entry.kept
}

/** The id of a stream's last entry (undefined when it has none), bounded by the deadline. */
export async function lastEntryId (redis: CommandSender, stream: string, timeoutMs: number): Promise<string | undefined> {
  const [last] = await redisCall(redis.send<Array<[string, unknown]>>(stream, ['XREVRANGE', stream, '+', '-', 'COUNT', '1']), timeoutMs)
  return last?.[0]
}

/** Up to FEED_PAGE entries of a stream after the entry `after`, bounded by the deadline. */
export async function entriesAfter (redis: CommandSender, stream: string, after: string, timeoutMs: number): Promise<FeedEntry[]> {
  const raw = await redisCall(redis.send<Array<[string, string[]]>>(stream, ['XRANGE', stream, `(${after}`, '+', 'COUNT', String(FEED_PAGE)]), timeoutMs)
  return parseEntries(raw)
}
