import { etagOf } from '../http/conditional.js'
import type { Snapshot } from '../documents/store/index.js'
import { formatPointer } from '../documents/pointer.js'
import { eventAt } from './changes.js'
import { emptyMark, FEED_START, type FeedEntry } from './feed.js'
import { EntryFollower, type FollowerOptions } from './follower.js'
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

/** Per entry, per location (its pointer), the frame: a thousand subscribers of a location cost one translation. */
export type FrameCache = WeakMap<FeedEntry, Map<string, Frame>>

/** The event an entry makes at a location, translated once per entry and location. */
function frameOf (frames: FrameCache, entry: FeedEntry, location: readonly string[], pointer: string): Frame {
  let byLocation = frames.get(entry)
  if (byLocation === undefined) frames.set(entry, byLocation = new Map())
  let frame = byLocation.get(pointer)
  if (frame !== undefined) return frame
  const event = eventAt(location, entry.changes, entry.whole)
  const etag = entry.version === '' ? undefined : JSON.stringify(etagOf(entry.version))
  switch (event.kind) {
    case 'none': frame = null; break
    case 'patch': frame = { name: 'patch', json: `{"patch":${JSON.stringify(event.patch)},"etag":${etag}}` }; break
    case 'put': frame = { name: 'put', json: `{"value":${JSON.stringify(event.value)},"etag":${etag}}` }; break
    case 'delete': frame = { name: 'delete', json: '{}' }; break
  }
  byLocation.set(pointer, frame)
  return frame
}

/**
 * One subscriber's stream of a location, following its document's events stream: a value, then an event
 * per write that touches the location; after a gap, `reset` and a fresh value.
 */
export class DocumentStream extends EntryFollower {
  /** Whether the location has a value, as far as the events sent say. */
  #present = true
  readonly #pointer: string

  constructor (out: SseWriter, private readonly options: DocumentStreamOptions) {
    super(out, options)
    this.#pointer = formatPointer(options.location)
  }

  protected async restart (from: string | undefined, reason: string | undefined): Promise<void> {
    if (from !== undefined && reason !== undefined) this.out.event('reset', from, JSON.stringify({ reason }))
    this.#startFrom(await this.options.snapshot())
  }

  /** Goes on from a value read and the entry it follows: sends the value (or its absence). */
  #startFrom (snapshot: Snapshot): void {
    this.last = snapshot.at === FEED_START ? emptyMark(Date.now()) : snapshot.at
    this.#present = snapshot.json !== undefined
    if (snapshot.json === undefined) this.send('delete', '{}')
    else this.send('put', `{"value":${snapshot.json},"etag":${JSON.stringify(etagOf(snapshot.version!))}}`)
  }

  /** An entry without its changes: the location's value is read once for every stream of it that takes the entry. */
  async #reread (entry: FeedEntry): Promise<void> {
    let byLocation = this.options.rereads.get(entry)
    if (byLocation === undefined) this.options.rereads.set(entry, byLocation = new Map())
    let read = byLocation.get(this.#pointer)
    if (read === undefined) byLocation.set(this.#pointer, read = this.options.snapshot())
    this.#startFrom(await read)
  }

  protected deliver (entry: FeedEntry): void | Promise<void> {
    if (entry.omitted) return this.#reread(entry)
    this.last = entry.id
    const frame = frameOf(this.options.frames, entry, this.options.location, this.#pointer)
    if (frame === null) return
    if (frame.name === 'delete') {
      if (!this.#present) return
      this.#present = false
    } else {
      this.#present = true
    }
    this.send(frame.name, frame.json)
  }
}
