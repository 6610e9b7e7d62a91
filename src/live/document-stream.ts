import { etagOf } from '../http/conditional.js'
import type { ChainReply } from '../documents/scripts/events.js'
import type { Snapshot } from '../documents/store/index.js'
import { formatPointer } from '../documents/pointer.js'
import { TOO_FAR } from './catch-up.js'
import { emptyMark, FEED_PAGE, FEED_START, lastEntryId, parseEntries, type FeedEntry } from './feed.js'
import { EntryFollower, GONE, type CatchUpPage, type FollowerOptions } from './follower.js'
import { LocationValue, translate, type Translation } from './location-value.js'
import type { SseWriter } from './sse.js'

export interface DocumentStreamOptions extends FollowerOptions {
  /** The document's Redis key, which its entries in the log name. */
  redisKey: string
  /** The location's tokens inside the document. */
  location: readonly string[]
  /** The location's value now, the document's entry it follows and the log's last. */
  snapshot: () => Promise<Snapshot>
  /** Entries of its document a stream catches up on at most (EVENTS_MAXLEN): past them it starts afresh. */
  catchUpEntries: number
  /** The document's entries, newest first, from one (or its last) back to another: see documentEntriesScript. */
  entries: (from: string, stop: string, count: number, maxBytes: number) => Promise<ChainReply>
  /** Events already made of an entry for a location, shared by the streams of an instance (see framesOf). */
  frames: FrameCache
  /** Gives an entry whose changes were kept beside the log those changes (see loadKeptChanges), once for every stream of an instance. */
  loadKept: (entry: FeedEntry) => Promise<void>
}

/** An event as sent: its name and data, or null when the entry sends nothing to the location. */
type Frame = { name: string, json: string } | null

/** What an entry does at a location for the streams that knew its value before it, and for those that did not. */
interface Outcome {
  frame: Frame
  after: LocationValue | undefined
}
interface Outcomes {
  known?: Outcome
  unknown?: Outcome
}

/**
 * Per entry, per location (its pointer), its outcome: a thousand subscribers of a location cost one
 * translation. Every stream that knows the value before an entry knows the same one (the document's, at
 * that entry), so they share one outcome and one value after it.
 */
export type FrameCache = WeakMap<FeedEntry, Map<string, Outcomes>>

/** Why a stream starts afresh at an entry whose changes are no longer known. */
export const CHANGES_LOST = 'a write\'s changes, too long for its event (EVENTS_MAX_ENTRY_BYTES), are no longer kept'

/** Pages of entries (FEED_PAGE each) a resumed stream reads back at most to work out the location's value at its position. */
const RECOVERY_PAGES = 3

/**
 * Entries of its document, and bytes of them, one catch-up reads at most in one call, whatever EVENTS_MAXLEN
 * says: the walk holds Redis a few milliseconds and the reply a few megabytes; past them the stream starts afresh.
 */
const CATCH_UP_ENTRIES = 10 * FEED_PAGE
const CATCH_UP_BYTES = 2 * 1024 * 1024

function frameOf ({ event }: Translation, version: string): Frame {
  const etag = version === '' ? undefined : JSON.stringify(etagOf(version))
  switch (event.kind) {
    case 'none': return null
    case 'patch': return { name: 'patch', json: `{"patch":${JSON.stringify(event.patch)},"etag":${etag}}` }
    case 'put': return { name: 'put', json: `{"value":${JSON.stringify(event.value)},"etag":${etag}}` }
    case 'delete': return { name: 'delete', json: '{}' }
  }
}

/** The outcome of an entry at a location for a stream knowing `before` (or not), translated once per entry and location. */
function outcomeOf (frames: FrameCache, entry: FeedEntry, location: readonly string[], pointer: string, before: LocationValue | undefined): Outcome {
  let byLocation = frames.get(entry)
  if (byLocation === undefined) frames.set(entry, byLocation = new Map())
  let outcomes = byLocation.get(pointer)
  if (outcomes === undefined) byLocation.set(pointer, outcomes = {})
  const side = before === undefined ? 'unknown' : 'known'
  let outcome = outcomes[side]
  if (outcome === undefined) {
    const translation = translate(location, entry.changes, entry.whole, before)
    outcome = outcomes[side] = { frame: frameOf(translation, entry.version), after: translation.after }
  }
  return outcome
}

/**
 * One subscriber's stream of a location, following its document's entries in the event log (each names the
 * document's entry before it): a value, then an event per write that changes the location's value; after a
 * gap, `reset` and a fresh value. Its position is its document's last entry taken.
 */
export class DocumentStream extends EntryFollower {
  /** The location's value as far as the events sent say; undefined when the stream cannot tell. */
  #known: LocationValue | undefined
  readonly #pointer: string
  /** The log's last entry when the stream started: where the instance's reader of the log starts, if first. */
  #logAt: string | undefined

  constructor (out: SseWriter, private readonly options: DocumentStreamOptions) {
    super(out, options)
    this.#pointer = formatPointer(options.location)
  }

  protected async restart (from: string | undefined, reason: string | undefined): Promise<void> {
    if (from !== undefined && reason !== undefined) this.out.event('reset', from, JSON.stringify({ reason }))
    this.#startFrom(await this.options.snapshot())
  }

  /** Resumed from the client's position: works out the location's value there from the entries up to it. */
  protected override async resumed (): Promise<void> {
    const { redis, stream, timeoutMs } = this.options
    this.#logAt = await lastEntryId(redis, stream, timeoutMs) ?? FEED_START
    this.#known = await this.#valueAt(this.last)
  }

  protected override watchFrom (): string {
    return this.#logAt ?? this.last
  }

  protected override takes (entry: FeedEntry): boolean {
    return entry.redisKey === this.options.redisKey
  }

  /** An entry written by a release before the one log names no entry before it: what came before is unknown. */
  protected override breaks (entry: FeedEntry): boolean {
    return entry.docPrev === undefined
  }

  protected override follows (entry: FeedEntry): boolean {
    return entry.docPrev === this.last || (entry.docPrev === FEED_START && this.last.startsWith('0-'))
  }

  /**
   * The document's entries after the last taken, walked back from its newest: every read past the first
   * hundred entries is a catch-up read of the credentials.
   */
  protected override async catchUpPage (): Promise<CatchUpPage> {
    const [ended, ...raw] = await this.options.entries('', this.last, Math.min(this.options.catchUpEntries, CATCH_UP_ENTRIES), CATCH_UP_BYTES)
    const reached = ended === 'reached' || (ended === 'first' && this.last.startsWith('0-'))
    if (!reached) return { restart: ended === 'more' ? TOO_FAR : GONE }
    for (let read = FEED_PAGE; read < raw.length; read += FEED_PAGE) {
      if (!await this.options.mayCatchUp()) return { restart: TOO_FAR }
    }
    return { entries: parseEntries(raw).reverse(), complete: true }
  }

  /** Goes on from a value read and the entry it follows: sends the value (or its absence). */
  #startFrom (snapshot: Snapshot): void {
    this.last = snapshot.at === FEED_START ? emptyMark(Date.now()) : snapshot.at
    this.#logAt ??= snapshot.logAt
    this.#known = LocationValue.read(snapshot.json)
    if (snapshot.json === undefined) this.send('delete', '{}')
    else this.send('put', `{"value":${snapshot.json},"etag":${JSON.stringify(etagOf(snapshot.version!))}}`)
  }

  /** An entry whose changes were kept beside the log goes on once they are read; one whose changes are lost starts afresh. */
  async #deliverKept (entry: FeedEntry): Promise<void> {
    await this.options.loadKept(entry)
    if (entry.omitted) await this.restart(this.last, CHANGES_LOST)
    else this.deliver(entry)
  }

  protected deliver (entry: FeedEntry): void | Promise<void> {
    if (entry.kept !== undefined || entry.omitted) return this.#deliverKept(entry)
    this.last = entry.id
    const { frame, after } = outcomeOf(this.options.frames, entry, this.options.location, this.#pointer, this.#known)
    this.#known = after
    if (frame !== null) this.send(frame.name, frame.json)
  }

  /**
   * The location's value after the entry `at`, from the entries up to it, a page at a time: the latest that
   * set the location whole (or a place above it), then the patches after it. Only pages past the first are
   * charged to the credentials, so a location set lately costs none however long the document's history.
   * Undefined when the entries kept do not say (none set it, one's changes are no longer kept, or `at` is gone), or the
   * credentials may read no more.
   */
  async #valueAt (at: string): Promise<LocationValue | undefined> {
    const { location } = this.options
    const later: FeedEntry[] = []
    let from = at
    for (let read = 0; read < RECOVERY_PAGES; read++) {
      if (read > 0 && !await this.options.mayCatchUp()) return undefined
      const [ended, ...raw] = await this.options.entries(from, '', FEED_PAGE, CATCH_UP_BYTES)
      const entries = parseEntries(raw)
      if (read === 0 && entries[0]?.id !== at) return undefined
      for (const entry of entries) {
        if (entry.omitted || entry.kept !== undefined) return undefined
        const set = translate(location, entry.changes, entry.whole, undefined).after
        if (set !== undefined) {
          return later.reduceRight<LocationValue | undefined>((known, next) =>
            known && translate(location, next.changes, next.whole, known).after, set)
        }
        later.push(entry)
      }
      const next = entries.at(-1)?.docPrev
      if (ended !== 'more' || next === undefined) return undefined
      from = next
    }
    return undefined
  }
}
