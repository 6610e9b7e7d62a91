import { etagOf } from '../http/conditional.js'
import { redisCall } from '../redis/deadline.js'
import type { Snapshot } from '../documents/store/index.js'
import { formatPointer } from '../documents/pointer.js'
import { emptyMark, FEED_PAGE, FEED_START, parseEntries, type FeedEntry } from './feed.js'
import { EntryFollower, type FollowerOptions } from './follower.js'
import { LocationValue, translate, type Translation } from './location-value.js'
import type { SseWriter } from './sse.js'

export interface DocumentStreamOptions extends FollowerOptions {
  /** The location's tokens inside the document. */
  location: readonly string[]
  /** The location's value now and the feed entry it follows. */
  snapshot: () => Promise<Snapshot>
  /** Events already made of an entry for a location, shared by the streams of an instance (see framesOf). */
  frames: FrameCache
  /** The location's value read after an entry without its changes, shared by the streams of an instance. */
  rereads: RereadCache
}

/** Per entry without its changes, per location (its pointer), the value read after it. */
export type RereadCache = WeakMap<FeedEntry, Map<string, Promise<Snapshot>>>

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

/** Entries a resumed stream reads back at most to work out the location's value at its position. */
const RECOVERY_PAGES = 3

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
 * One subscriber's stream of a location, following its document's events stream: a value, then an event
 * per write that changes the location's value; after a gap, `reset` and a fresh value.
 */
export class DocumentStream extends EntryFollower {
  /** The location's value as far as the events sent say; undefined when the stream cannot tell. */
  #known: LocationValue | undefined
  readonly #pointer: string

  constructor (out: SseWriter, private readonly options: DocumentStreamOptions) {
    super(out, options)
    this.#pointer = formatPointer(options.location)
  }

  protected async restart (from: string | undefined, reason: string | undefined): Promise<void> {
    if (from !== undefined && reason !== undefined) this.out.event('reset', from, JSON.stringify({ reason }))
    this.#startFrom(await this.options.snapshot(), true)
  }

  /** Resumed from the client's position: works out the location's value there from the entries up to it. */
  protected override async resumed (): Promise<void> {
    this.#known = await this.#valueAt(this.last)
  }

  /**
   * Goes on from a value read and the entry it follows. A stream starting sends the value (or its
   * absence); one going on after an entry without its changes sends it only when it differs from the known one.
   */
  #startFrom (snapshot: Snapshot, starting: boolean): void {
    this.last = snapshot.at === FEED_START ? emptyMark(Date.now()) : snapshot.at
    const before = this.#known
    this.#known = LocationValue.read(snapshot.json)
    if (!starting && before !== undefined && before.text() === this.#known.text()) return
    if (snapshot.json === undefined) this.send('delete', '{}')
    else this.send('put', `{"value":${snapshot.json},"etag":${JSON.stringify(etagOf(snapshot.version!))}}`)
  }

  /** An entry without its changes: the location's value is read once for every stream of it that takes the entry. */
  async #reread (entry: FeedEntry): Promise<void> {
    let byLocation = this.options.rereads.get(entry)
    if (byLocation === undefined) this.options.rereads.set(entry, byLocation = new Map())
    let read = byLocation.get(this.#pointer)
    if (read === undefined) byLocation.set(this.#pointer, read = this.options.snapshot())
    this.#startFrom(await read, false)
  }

  protected deliver (entry: FeedEntry): void | Promise<void> {
    if (entry.omitted) return this.#reread(entry)
    this.last = entry.id
    const { frame, after } = outcomeOf(this.options.frames, entry, this.options.location, this.#pointer, this.#known)
    this.#known = after
    if (frame !== null) this.send(frame.name, frame.json)
  }

  /**
   * The location's value after the entry `at`, from the last entries up to it: the latest that set the
   * location whole (or a place above it), then the patches after it. Undefined when the entries kept do
   * not say (none set it, one lacks its changes, or `at` is gone), or the credentials may read no more.
   */
  async #valueAt (at: string): Promise<LocationValue | undefined> {
    const { redis, stream, timeoutMs, location } = this.options
    const later: FeedEntry[] = []
    let end = at
    for (let page = 0; page < RECOVERY_PAGES; page++) {
      if (page > 0 && !await this.options.mayCatchUp()) return undefined
      const entries = parseEntries(await redisCall(redis.send<Array<[string, string[]]>>(stream,
        ['XREVRANGE', stream, end, '-', 'COUNT', String(FEED_PAGE)]), timeoutMs))
      if (page === 0 && entries[0]?.id !== at) return undefined
      for (const entry of entries) {
        if (entry.omitted) return undefined
        const set = translate(location, entry.changes, entry.whole, undefined).after
        if (set !== undefined) {
          return later.reduceRight<LocationValue | undefined>((known, next) =>
            known && translate(location, next.changes, next.whole, known).after, set)
        }
        later.push(entry)
      }
      if (entries.length < FEED_PAGE) return undefined
      end = `(${entries.at(-1)!.id}`
    }
    return undefined
  }
}
