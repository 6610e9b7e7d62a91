import { etagOf } from '../http/conditional.js'
import type { CommandSender } from '../redis/redis.js'
import type { Snapshot } from '../documents/store/index.js'
import { formatPointer } from '../documents/pointer.js'
import { eventAt } from './changes.js'
import type { EventReader } from './event-reader.js'
import { compareIds, emptyMark, entriesAfter, FEED_PAGE, FEED_START, follows, idTime, type FeedEntry } from './feed.js'
import type { SseWriter } from './sse.js'

export interface DocumentStreamOptions {
  reader: EventReader
  /** Reads what the reader is past (a subscriber starting behind it, or after a gap): the service's client. */
  redis: CommandSender
  timeoutMs: number
  retentionMs: number
  /** The events stream of the document. */
  stream: string
  /** The location's tokens inside the document. */
  location: readonly string[]
  /** The location's value now and the feed entry it follows. */
  snapshot: () => Promise<Snapshot>
  /** Called once the stream ended, whatever ended it. */
  onEnd: () => void
  /** Events already made of an entry for a location, shared by the streams of an instance (see framesOf). */
  frames: FrameCache
}

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
  const event = eventAt(location, entry.changes)
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

/** Entries a stream may hold while it reads from Redis; past them it starts again from a fresh value. */
const MAX_PENDING = 10_000

/**
 * One subscriber's stream of a location: a value, then an event per write that touches the location, each
 * with the id of its feed entry. Every entry it takes must follow the last one it took (its `prev`); when
 * one does not, it reads the stream from the last one, and when that is gone (past the retention) it says
 * `reset` and starts again from a fresh value: it never skips an entry silently, and never sends one twice.
 */
export class DocumentStream {
  #last = '0-0'
  /** Whether the location has a value, as far as the events sent say. */
  #present = true
  #pending: FeedEntry[] = []
  #catchingUp = true
  #pumping = false
  #ended = false
  #unwatch: (() => void) | undefined
  readonly #pointer: string

  constructor (private readonly out: SseWriter, private readonly options: DocumentStreamOptions) {
    this.#pointer = formatPointer(options.location)
  }

  /** Starts after the event `resumeFrom` when given (Last-Event-ID), else from the location's value now. */
  async start (resumeFrom: string | undefined): Promise<void> {
    if (resumeFrom !== undefined && idTime(resumeFrom) >= Date.now() - this.options.retentionMs) {
      this.#last = resumeFrom
    } else {
      if (resumeFrom !== undefined) this.#reset(resumeFrom, 'the last event id is older than the retention of events')
      await this.#sendSnapshot()
    }
    if (this.#ended) return
    this.#unwatch = this.options.reader.watch(this.options.stream, this.#last, this.#take)
    await this.#pump()
  }

  /** Ends the stream, sending a last `end` event saying why when given. */
  end (reason?: string): void {
    if (this.#ended) return
    this.#ended = true
    this.#unwatch?.()
    if (reason !== undefined) this.out.event('end', this.#last, JSON.stringify({ reason }))
    this.out.end()
    this.options.onEnd()
  }

  readonly #take = (entries: readonly FeedEntry[]): void => {
    this.#pending.push(...entries)
    if (this.#pending.length > MAX_PENDING) {
      this.#pending = []
      this.#catchingUp = true
    }
    void this.#pump()
  }

  #reset (id: string, reason: string): void {
    this.out.event('reset', id, JSON.stringify({ reason }))
  }

  async #sendSnapshot (): Promise<void> {
    const snapshot = await this.options.snapshot()
    this.#last = snapshot.at === FEED_START ? emptyMark(Date.now()) : snapshot.at
    this.#present = snapshot.json !== undefined
    if (snapshot.json === undefined) this.#send('delete', '{}')
    else this.#send('put', `{"value":${snapshot.json},"etag":${JSON.stringify(etagOf(snapshot.version!))}}`)
    this.#catchingUp = true
  }

  #send (name: string, json: string): void {
    if (!this.out.event(name, this.#last, json)) this.end()
  }

  async #pump (): Promise<void> {
    if (this.#pumping) return
    this.#pumping = true
    try {
      while (!this.#ended) {
        if (this.#catchingUp) {
          await this.#catchUp()
          continue
        }
        const entry = this.#pending.shift()
        if (entry === undefined) return
        if (compareIds(entry.id, this.#last) <= 0) continue
        if (!follows(entry, this.#last)) {
          this.#pending.unshift(entry)
          this.#catchingUp = true
          continue
        }
        this.#deliver(entry)
      }
    } catch {
      // Redis did not answer: the client resumes from its last event on another connection.
      this.end()
    } finally {
      this.#pumping = false
    }
  }

  /** Reads one page of the stream after the last entry taken; a page that does not follow it means entries are gone. */
  async #catchUp (): Promise<void> {
    const page = await entriesAfter(this.options.redis, this.options.stream, this.#last, this.options.timeoutMs)
    if (this.#ended) return
    const first = page[0] ?? this.#pending.find((entry) => compareIds(entry.id, this.#last) > 0)
    if (first !== undefined && !follows(first, this.#last)) {
      this.#reset(this.#last, 'events since the last event id are no longer kept')
      this.#pending = []
      await this.#sendSnapshot()
      return
    }
    for (const entry of page) this.#deliver(entry)
    if (page.length < FEED_PAGE) this.#catchingUp = false
  }

  #deliver (entry: FeedEntry): void {
    this.#last = entry.id
    const frame = frameOf(this.options.frames, entry, this.options.location, this.#pointer)
    if (frame === null) return
    if (frame.name === 'delete') {
      if (!this.#present) return
      this.#present = false
    } else {
      this.#present = true
    }
    this.#send(frame.name, frame.json)
  }
}
