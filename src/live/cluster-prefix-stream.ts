import { TOO_FAR, type CatchUpAdmission } from './catch-up.js'
import { nextSpan, READ_SPAN_MS, type ClusterFeed, type ClusterRead } from './cluster-feed.js'
import { compareIds, resumable, type FeedEntry } from './feed.js'
import { GONE, TOO_OLD } from './follower.js'
import { deliverShown, type PrefixFrameCache } from './prefix-stream.js'
import type { SseWriter } from './sse.js'

export interface ClusterPrefixStreamOptions {
  feed: ClusterFeed
  retentionMs: number
  keyPrefix: string
  prefix: string
  reach: 'all' | readonly string[]
  frames: PrefixFrameCache
  /** Gives an entry whose changes were kept beside the log those changes, once for every stream of an instance. */
  loadKept: (entry: FeedEntry) => Promise<void>
  onEnd: () => void
  /** Charges a catch-up read beyond the first to the subscriber's credentials: false when they have none left. */
  mayCatchUp: CatchUpAdmission
}

/** Shared reads a stream may hold while it reads for itself; past them it reads again from its position. */
const MAX_PENDING = 100

/**
 * One subscriber's stream of every document under a key prefix that it may read, on a Redis Cluster: it
 * follows the slot feeds read as one (see ClusterFeed), each event's id `<ms>-<seq>-<slot>` its position.
 * It takes a shared read that starts at its position; behind one, it reads for itself until it is at the
 * shared position; a slot feed that lost entries after its position makes it send `reset` and go on from now.
 */
export class ClusterPrefixStream {
  #last = '0-0-0'
  #pending: Array<{ from: string, read: ClusterRead }> = []
  #pumping = false
  #ended = false
  #unwatch: (() => void) | undefined

  constructor (private readonly out: SseWriter, private readonly options: ClusterPrefixStreamOptions) {}

  async start (resumeFrom: string | undefined): Promise<void> {
    if (resumeFrom !== undefined && resumable(resumeFrom, this.options.retentionMs)) {
      this.#last = resumeFrom
      this.out.position(this.#last)
    } else {
      await this.#restart(resumeFrom === undefined ? undefined : TOO_OLD)
    }
    if (this.#ended) return
    this.#unwatch = this.options.feed.watch(this.#last, (from, read) => {
      this.#pending.push({ from, read })
      if (this.#pending.length > MAX_PENDING) this.#pending = []
      void this.#pump()
    })
  }

  end (reason?: string): void {
    if (this.#ended) return
    this.#ended = true
    this.#unwatch?.()
    if (reason !== undefined) this.out.event('end', this.#last, JSON.stringify({ reason }))
    this.out.end()
    this.options.onEnd()
  }

  /** Idle streams move their client's position on, as the shared reads move it. */
  heartbeat (): void {
    this.out.heartbeat(this.#last)
  }

  /** Starts from now: with a `reset` first when the client held a position now lost. */
  async #restart (reason: string | undefined): Promise<void> {
    this.#last = (await this.options.feed.read(`${Date.now()}-0`)).now
    if (reason === undefined) this.out.position(this.#last)
    else this.#send('reset', JSON.stringify({ reason, reload: true }))
  }

  async #pump (): Promise<void> {
    if (this.#pumping) return
    this.#pumping = true
    try {
      while (!this.#ended) {
        const shared = this.#pending.shift()
        if (shared === undefined) return
        if (compareIds(shared.read.upTo, this.#last) <= 0) continue
        if (compareIds(shared.from, this.#last) <= 0) {
          if (!await this.#takes(shared.read)) await this.#restart(GONE)
          continue
        }
        // Behind the shared read (it starts past this stream's position): reads what lies between, at once.
        let span = READ_SPAN_MS
        let reads = 0
        while (!this.#ended && compareIds(this.#last, shared.read.upTo) < 0) {
          if (reads++ > 0 && !await this.options.mayCatchUp()) {
            this.#pending = []
            if (!this.#ended) await this.#restart(TOO_FAR)
            break
          }
          const before = this.#last
          const read = await this.options.feed.read(before, span)
          if (this.#ended) return
          if (!await this.#takes(read)) {
            await this.#restart(GONE)
            break
          }
          if (this.#last === before) break
          span = nextSpan(read, span)
        }
      }
    } catch {
      // Redis did not answer: the client resumes from its last event on another connection.
      this.end()
    } finally {
      this.#pumping = false
    }
  }

  /** Takes a read from this stream's position or before: false when it lost an entry past it (the stream must start afresh). */
  async #takes (read: ClusterRead): Promise<boolean> {
    if (read.lost !== undefined && compareIds(read.lost, this.#last) > 0) {
      this.#pending = []
      return false
    }
    for (const entry of read.entries) {
      if (compareIds(entry.id, this.#last) <= 0) continue
      this.#last = entry.id
      await deliverShown(this.options, entry, (name, json) => { this.#send(name, json) })
      if (this.#ended) return true
    }
    if (compareIds(read.upTo, this.#last) > 0) this.#last = read.upTo
    return true
  }

  #send (name: string, json: string): void {
    if (!this.out.event(name, this.#last, json)) this.end()
  }
}
