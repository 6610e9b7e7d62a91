import type { CommandSender } from '../redis/redis.js'
import { groupsBySlot } from '../redis/slots.js'
import { FEED_PAGE, parseEntries, type FeedEntry } from './feed.js'

/** The reader's own connection to Redis, which nothing else uses: its reads block. */
export interface ReaderConnection {
  sender: CommandSender
  /** A Redis Cluster: one read names streams of one slot only, so reads poll rather than block. */
  isCluster: boolean
  /** Ends a blocking read in progress at once (CLIENT UNBLOCK from another connection). */
  unblock (): Promise<void>
  close (): Promise<void>
}

export type EntriesListener = (entries: readonly FeedEntry[]) => void

interface Watched {
  /** The last entry read from the stream, or where the first listener asked to start. */
  cursor: string
  listeners: Set<EntriesListener>
}

/** How long one blocking read waits before it is sent again (with the streams watched by then). */
const BLOCK_MS = 1000
/** After a failed read, the next waits this long. */
const RETRY_MS = 500

type XreadReply = Array<[string, Array<[string, string[]]>]> | Record<string, Array<[string, string[]]>> | Map<string, Array<[string, string[]]>> | null

/** XREAD's answer, whatever form RESP3 decoding gave it: per stream, its entries. */
function streamsOf (reply: XreadReply): Array<[string, Array<[string, string[]]>]> {
  if (reply === null) return []
  if (Array.isArray(reply)) return reply
  if (reply instanceof Map) return [...reply.entries()]
  return Object.entries(reply)
}

/**
 * The one reader of events streams of an instance: every stream some subscriber needs is read by one
 * XREAD on one connection (on a cluster, one per slot, sent together), whatever the number of subscribers,
 * and what it reads is handed to each listener of the stream, in order. A listener that starts behind the
 * stream's cursor reads what it missed itself (see the stream session): the reader only goes forward.
 */
export class EventReader {
  readonly #streams = new Map<string, Watched>()
  readonly #running: Promise<void>
  #closed = false
  #blocked = false
  #wake: (() => void) | undefined

  constructor (private readonly connection: ReaderConnection, private readonly onError: (error: Error) => void) {
    this.#running = this.#loop()
  }

  /** Streams read now. */
  get size (): number {
    return this.#streams.size
  }

  /** Hands the entries of stream after `after` to listener, until the returned function is called. */
  watch (stream: string, after: string, listener: EntriesListener): () => void {
    let watched = this.#streams.get(stream)
    if (watched === undefined) {
      watched = { cursor: after, listeners: new Set() }
      this.#streams.set(stream, watched)
      this.#interrupt()
    }
    watched.listeners.add(listener)
    const current = watched
    return () => {
      current.listeners.delete(listener)
      if (current.listeners.size === 0 && this.#streams.get(stream) === current) this.#streams.delete(stream)
    }
  }

  async close (): Promise<void> {
    this.#closed = true
    this.#interrupt()
    await this.#running
    await this.connection.close()
  }

  #interrupt (): void {
    if (this.#blocked) this.connection.unblock().catch(() => undefined)
    this.#wake?.()
  }

  #pause (ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      function done () {
        clearTimeout(timer)
        resolve()
      }
      this.#wake = done
    }).finally(() => { this.#wake = undefined })
  }

  async #loop (): Promise<void> {
    while (!this.#closed) {
      if (this.#streams.size === 0) {
        await this.#pause(BLOCK_MS)
        continue
      }
      try {
        const read = this.connection.isCluster ? await this.#poll() : await this.#block()
        if (!read && this.connection.isCluster) await this.#pause(Math.min(1000, Math.max(10, this.#streams.size)))
      } catch (error) {
        if (this.#closed) break
        this.onError(error as Error)
        await this.#pause(RETRY_MS)
      }
    }
  }

  /** One XREAD BLOCK over every stream watched: whether it read anything. */
  async #block (): Promise<boolean> {
    const names = [...this.#streams.keys()]
    const cursors = names.map((name) => this.#streams.get(name)!.cursor)
    this.#blocked = true
    try {
      const reply = await this.connection.sender.send<XreadReply>(names[0],
        ['XREAD', 'COUNT', String(FEED_PAGE), 'BLOCK', String(BLOCK_MS), 'STREAMS', ...names, ...cursors])
      return this.#dispatch(reply)
    } finally {
      this.#blocked = false
    }
  }

  /** One XREAD per slot of the streams watched, sent together: whether any read anything. */
  async #poll (): Promise<boolean> {
    const names = [...this.#streams.keys()]
    const replies = await Promise.all(groupsBySlot(names, true).map((group) => {
      const streams = group.map((index) => names[index]!)
      return this.connection.sender.send<XreadReply>(streams[0],
        ['XREAD', 'COUNT', String(FEED_PAGE), 'STREAMS', ...streams, ...streams.map((name) => this.#streams.get(name)!.cursor)])
    }))
    let read = false
    for (const reply of replies) read = this.#dispatch(reply) || read
    return read
  }

  #dispatch (reply: XreadReply): boolean {
    let read = false
    for (const [stream, raw] of streamsOf(reply)) {
      const watched = this.#streams.get(stream)
      if (watched === undefined || raw.length === 0) continue
      read = true
      const entries = parseEntries(raw)
      watched.cursor = entries.at(-1)!.id
      for (const listener of watched.listeners) listener(entries)
    }
    return read
  }
}
