import type { CommandSender } from '../redis/redis.js'
import { TOO_FAR, type CatchUpAdmission } from './catch-up.js'
import type { EventReader } from './event-reader.js'
import { compareIds, entriesAfter, FEED_PAGE, follows, resumable, type FeedEntry } from './feed.js'
import type { SseWriter } from './sse.js'

export interface FollowerOptions {
  reader: EventReader
  /** Reads what the reader is past (a subscriber starting behind it, or after a gap): the service's client. */
  redis: CommandSender
  timeoutMs: number
  retentionMs: number
  /** The event log followed: the namespace's, or on a cluster the slot's of the document followed. */
  stream: string
  /** Called once the stream ended, whatever ended it. */
  onEnd: () => void
  /** Charges a catch-up read beyond the first to the subscriber's credentials: false when they have none left. */
  mayCatchUp: CatchUpAdmission
}

/** A page of a stream's catch-up: entries and whether they reach the end, or why the stream must start afresh. */
export type CatchUpPage = { entries: FeedEntry[], complete: boolean } | { restart: string }

/** Entries a stream may hold while it reads from Redis; past them it starts again from a fresh value. */
const MAX_PENDING = 10_000

/** Why a stream starts afresh: its resume point is too old, or entries after it are gone. */
export const TOO_OLD = 'the last event id is older than the retention of events'
export const GONE = 'events since the last event id are no longer kept'

/**
 * One subscriber's stream of entries, each sent with the id of its entry. Every entry it takes must follow
 * the last one it took (its `prev`); when one does not, it reads the stream from the last one, and when that
 * is gone (past the retention) it starts afresh, saying `reset`: it never skips an entry silently, and never
 * sends one twice. What it sends of an entry, and how it starts afresh, are the subclass's.
 */
export abstract class EntryFollower {
  /** The id of the last entry taken: the stream's position, and the id of the events it sends. */
  protected last = '0-0'
  #pending: FeedEntry[] = []
  #catchingUp = true
  /** Pages read in the current catch-up. */
  #pagesRead = 0
  #pumping = false
  #ended = false
  #unwatch: (() => void) | undefined

  constructor (protected readonly out: SseWriter, private readonly follower: FollowerOptions) {}

  /** Starts after the event `resumeFrom` when given (Last-Event-ID), else from now. */
  async start (resumeFrom: string | undefined): Promise<void> {
    // A position from the future (beyond any clock skew) is no event of this stream: it starts afresh too.
    if (resumeFrom !== undefined && resumable(resumeFrom, this.follower.retentionMs)) {
      this.last = resumeFrom
      await this.resumed()
    } else {
      await this.restart(resumeFrom, resumeFrom === undefined ? undefined : TOO_OLD)
    }
    this.#catchingUp = true
    if (this.#ended) return
    this.#unwatch = this.follower.reader.watch(this.follower.stream, this.watchFrom(), this.#take)
    await this.#pump()
  }

  /** Ends the stream, sending a last `end` event saying why when given. */
  end (reason?: string): void {
    if (this.#ended) return
    this.#ended = true
    this.#unwatch?.()
    if (reason !== undefined) this.out.event('end', this.last, JSON.stringify({ reason }))
    this.out.end()
    this.follower.onEnd()
  }

  /** Called when the stream resumes from the client's position, before any entry. */
  protected resumed (): void | Promise<void> {}

  /** Where the instance's reader of the log starts, for a stream that is the first to follow it. */
  protected watchFrom (): string {
    return this.last
  }

  /** Whether the stream takes an entry of the log at all. */
  protected takes (_entry: FeedEntry): boolean {
    return true
  }

  /** Whether an entry the stream takes says nothing of what came before it, so that the stream must start afresh. */
  protected breaks (_entry: FeedEntry): boolean {
    return false
  }

  /** Whether an entry the stream takes comes right after the last one it took. */
  protected follows (entry: FeedEntry): boolean {
    return follows(entry, this.last)
  }

  /**
   * Reads what follows `last` in the log, a page at a time: the entries (all of them following on from `last`
   * when they are the stream's), whether that was the last page, or why the stream must start afresh.
   */
  protected async catchUpPage (): Promise<CatchUpPage> {
    const entries = await entriesAfter(this.follower.redis, this.follower.stream, this.last, this.follower.timeoutMs)
    return { entries, complete: entries.length < FEED_PAGE }
  }

  /** Keeps an idle stream open through proxies. */
  heartbeat (): void {
    this.out.heartbeat()
  }

  /**
   * Starts afresh from what is there now: sets `last`, and sends what a client needs to go on from it,
   * with a `reset` first when there is a reason (a client that held a position `from`, now lost).
   */
  protected abstract restart (from: string | undefined, reason: string | undefined): Promise<void>

  /**
   * Takes an entry that follows `last`: sets `last` to its id (or past it), and sends what it means to the
   * subscriber; an entry whose changes were kept beside the log needs a read.
   */
  protected abstract deliver (entry: FeedEntry): void | Promise<void>

  protected send (name: string, json: string): void {
    if (!this.out.event(name, this.last, json)) this.end()
  }

  readonly #take = (entries: readonly FeedEntry[]): void => {
    this.#pending.push(...entries)
    if (this.#pending.length > MAX_PENDING) {
      this.#pending = []
      this.#catchingUp = true
    }
    void this.#pump()
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
        if (!this.takes(entry) || compareIds(entry.id, this.last) <= 0) continue
        if (this.breaks(entry)) {
          this.#pending = []
          await this.restart(this.last, GONE)
          continue
        }
        if (!this.follows(entry)) {
          this.#pending.unshift(entry)
          this.#catchingUp = true
          continue
        }
        await this.deliver(entry)
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
    if (this.#pagesRead > 0 && !await this.follower.mayCatchUp()) {
      if (this.#ended) return
      this.#pending = []
      this.#pagesRead = 0
      await this.restart(this.last, TOO_FAR)
      return
    }
    const page = await this.catchUpPage()
    if (this.#ended) return
    const first = 'restart' in page ? undefined : page.entries[0] ?? this.#pending.find((entry) => this.takes(entry) && compareIds(entry.id, this.last) > 0)
    if ('restart' in page || (first !== undefined && !this.follows(first))) {
      this.#pending = []
      this.#pagesRead = 0
      await this.restart(this.last, 'restart' in page ? page.restart : GONE)
      return
    }
    for (const entry of page.entries) {
      // An entry read to deliver one before may have moved the position past the rest.
      if (compareIds(entry.id, this.last) > 0) await this.deliver(entry)
      if (this.#ended) return
    }
    this.#pagesRead++
    if (page.complete) {
      this.#catchingUp = false
      this.#pagesRead = 0
    }
  }
}
