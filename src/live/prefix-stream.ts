import { etagOf } from '../http/conditional.js'
import { eventAt } from './changes.js'
import { emptyMark, lastEntryId, type FeedEntry } from './feed.js'
import { EntryFollower, type FollowerOptions } from './follower.js'
import type { SseWriter } from './sse.js'

export interface PrefixStreamOptions extends FollowerOptions {
  /** The service's KEY_PREFIX: feed entries name the Redis key of their document. */
  keyPrefix: string
  /** The documents followed: keys starting with it. */
  prefix: string
  /** Narrower prefixes, one of which a key must start with too (the reader's read scopes under prefix), or 'all'. */
  reach: 'all' | readonly string[]
  /** Events already made of a feed entry, shared by the prefix streams of an instance. */
  frames: PrefixFrameCache
  /** Gives an entry whose changes were kept beside the log those changes, once for every stream of an instance. */
  loadKept: (entry: FeedEntry) => Promise<void>
}

/** An entry's event for every prefix stream that shows its key: its name and data; null for none. */
type PrefixFrame = { name: string, json: string } | null

/** Per feed entry, its event: a thousand subscribers of one prefix cost one translation. */
export type PrefixFrameCache = WeakMap<FeedEntry, PrefixFrame>

/** The event a feed entry makes for the document at key: the changes as a patch of the whole document. */
export function frameOf (frames: PrefixFrameCache, entry: FeedEntry, key: string): PrefixFrame {
  let frame = frames.get(entry)
  if (frame !== undefined) return frame
  const named = `{"key":${JSON.stringify(key)}`
  const etag = entry.version === '' ? undefined : JSON.stringify(etagOf(entry.version))
  if (entry.kept !== undefined || entry.omitted) {
    // Changes too long for the entry (EVENTS_MAX_ENTRY_BYTES) and no longer kept beside the log: the client reads the document.
    frame = { name: 'changed', json: `${named},"etag":${etag}}` }
    frames.set(entry, frame)
    return frame
  }
  const event = eventAt([], entry.changes, entry.whole)
  switch (event.kind) {
    case 'patch': frame = { name: 'patch', json: `${named},"patch":${JSON.stringify(event.patch)},"etag":${etag}}` }; break
    case 'put': frame = { name: 'put', json: `${named},"value":${JSON.stringify(event.value)},"etag":${etag}}` }; break
    case 'delete': frame = { name: 'delete', json: `${named}}` }; break
    case 'none': frame = null; break
  }
  frames.set(entry, frame)
  return frame
}

/** Whether a prefix stream shows the document at key: under its prefix, and one of its reach. */
export function shows ({ prefix, reach }: Pick<PrefixStreamOptions, 'prefix' | 'reach'>, key: string): boolean {
  return key.startsWith(prefix) && (reach === 'all' || reach.some((granted) => key.startsWith(granted)))
}

/**
 * One subscriber's stream of every document under a key prefix that it may read, following the namespace's
 * feed: an event per write, naming its key. There is no value to start from: a new stream starts from the
 * feed's last entry (its id sent at once, so that a client resuming before any event misses nothing), and
 * after a gap it sends `reset` telling the client to reload the documents, and goes on from there.
 */
export class PrefixStream extends EntryFollower {
  constructor (out: SseWriter, private readonly options: PrefixStreamOptions) {
    super(out, options)
  }

  /** Says the position back at once, as a new stream does: a client holds it even before any event. */
  protected override resumed (): void {
    this.out.position(this.last)
  }

  /** Idle streams move their client's position on: a narrow subscriber of a busy feed resumes from near now. */
  override heartbeat (): void {
    this.out.heartbeat(this.last)
  }

  protected async restart (_from: string | undefined, reason: string | undefined): Promise<void> {
    const { redis, stream, timeoutMs } = this.options
    this.last = await lastEntryId(redis, stream, timeoutMs) ?? emptyMark(Date.now())
    if (reason === undefined) this.out.position(this.last)
    else this.send('reset', JSON.stringify({ reason, reload: true }))
  }

  protected deliver (entry: FeedEntry): void | Promise<void> {
    this.last = entry.id
    return deliverShown(this.options, entry, (name, json) => { this.send(name, json) })
  }
}

/**
 * Sends an entry's event to a prefix stream when it shows the entry's key: only those entries are translated
 * (once for every stream that shows them), and only their kept changes read.
 */
export function deliverShown (options: Pick<PrefixStreamOptions, 'keyPrefix' | 'prefix' | 'reach' | 'frames' | 'loadKept'>, entry: FeedEntry,
  send: (name: string, json: string) => void): void | Promise<void> {
  const { keyPrefix, frames } = options
  if (entry.redisKey?.startsWith(keyPrefix) !== true) return
  const key = entry.redisKey.slice(keyPrefix.length)
  if (!shows(options, key)) return
  const sendFrame = () => {
    const frame = frameOf(frames, entry, key)
    if (frame !== null) send(frame.name, frame.json)
  }
  if (entry.kept !== undefined) return options.loadKept(entry).then(sendFrame)
  sendFrame()
}
