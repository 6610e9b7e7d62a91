import { LOG_SUFFIX } from '../documents/store/context.js'
import { redisCall } from '../redis/deadline.js'
import { LuaScript } from '../redis/lua-script.js'
import type { CommandSender } from '../redis/redis.js'
import { number, protocol, rest, text } from '../redis/script-protocol.js'
import { tagOfSlot } from '../redis/slots.js'
import { compareIds, FEED_PAGE, parseEntries, type FeedEntry } from './feed.js'

/**
 * The entries of a node's slot feeds from an id on (inclusive) up to another (inclusive), with the node's time, in one read-only step:
 * the first feed routes the call, the others (of other slots of the same node) are named in the arguments.
 * Answers the time (seconds, microseconds), then per feed holding entries: its index (0 the routing one), its entries.
 */
const slotFeedsScript = new LuaScript('slot-feeds', protocol({
  keys: ['feed'], args: { from: text, to: text, count: number, others: rest }, reply: (raw) => raw as Array<string | Array<[string, string[]]>>
}), `
local found = redis.call('TIME')
local function read(index, key)
  local entries = redis.call('XRANGE', key, from, to, 'COUNT', count)
  if #entries > 0 then
    found[#found + 1] = tostring(index)
    found[#found + 1] = entries
  end
end
read(0, feed)
for i = others, #ARGV do read(i - others + 1, ARGV[i]) end
return found
`, { readOnly: true, crossSlot: true })

/**
 * How much of the feeds' history one read covers at first: what a read holds is bounded by the writes of
 * its span (and 100 entries per slot), however far behind its position is. A reader whose read reached the
 * end of its span with few entries reads a span four times as long next (see nextSpan).
 */
export const READ_SPAN_MS = 1000

/** Entries under which a read that reached the end of its span widens the next. */
const FEW_ENTRIES = 1000

/** The span of a reader's next read, given its last read and the span it had. */
export function nextSpan (read: ClusterRead, span: number): number {
  return read.spanFull && read.entries.length < FEW_ENTRIES ? Math.min(span * 4, 86_400_000) : READ_SPAN_MS
}

/** The largest sequence of an entry id: a position after every entry of its millisecond. */
const LAST_SEQ = '18446744073709551615'

/** Parts of a cluster feed position, `<ms>-<seq>-<slot>`; a position without a slot is before every slot of its id. */
function partsOf (position: string): { id: string, slot: number } {
  const [ms, seq, slot] = position.split('-')
  return { id: `${ms}-${seq}`, slot: slot === undefined ? -1 : Number(slot) }
}

/** One read of every slot feed after a position. */
export interface ClusterRead {
  /** The entries after the position, up to `upTo`, in order of id then slot; each names its slot in its id. */
  entries: FeedEntry[]
  /** The position the read reaches: every entry at or before it is among the entries or before the position. */
  upTo: string
  /**
   * The latest entry a slot feed lost (trimmed) after the position, if any: a reader not yet past it must
   * start afresh; one past it (a stream ahead of a shared read) lost nothing.
   */
  lost: string | undefined
  /** The position every master has passed, whatever the position read from: where a new stream starts. */
  now: string
  /** Whether the read stopped at the end of its span, short of now. */
  spanFull: boolean
}

export type ClusterReadListener = (from: string, read: ClusterRead) => void

/**
 * Slot feeds one call reads at most: a master's 5,461 (of three) in one call held it 15 to 20 ms; in runs of
 * 512, each call holds it a tenth of that, and other clients' commands wait no longer than that between them.
 */
export const SLOT_FEEDS_PER_CALL = 512

/** A call's reply (the node's time, then each feed with entries: its index in the run, its entries), and the run's slots. */
interface ChunkReply {
  slots: number[]
  reply: Array<string | Array<[string, string[]]>>
}

/** How often the shared read runs while a prefix stream is open. */
export const CLUSTER_POLL_MS = 250

/** Whether an error says a call named a key of another node (the cluster's slots moved). */
const MOVED = /non local key|MOVED|ASK|CROSSSLOT/

/**
 * The per-slot feeds of a Redis Cluster, read as one feed: per master, read-only calls naming runs of its slot
 * feeds answer their entries after a position and the node's time. Entries are ordered by id,
 * then slot, and given only up to the earliest time the masters answered (less a millisecond): any later
 * write gets an id at or after its node's time, so nothing can come later before that point, and a position
 * `<ms>-<seq>-<slot>` says exactly what a reader has. One shared read per poll serves every prefix stream of
 * the instance; a stream behind it reads for itself until it has caught up.
 */
export class ClusterFeed {
  readonly #listeners = new Set<ClusterReadListener>()
  #layout: Array<{ keys: string[], slots: number[] }> | undefined
  #cursor: string | undefined
  #timer: NodeJS.Timeout | undefined
  #polling = false
  #span = READ_SPAN_MS

  constructor (private readonly redis: CommandSender, private readonly keyPrefix: string,
    private readonly timeoutMs: number, private readonly onError: (error: Error) => void) {}

  /** The slot feeds of each master, from CLUSTER SLOTS (read again when slots moved). */
  async #layoutOf (): Promise<Array<{ keys: string[], slots: number[] }>> {
    if (this.#layout !== undefined) return this.#layout
    const ranges = await redisCall(this.redis.send<Array<[number, number, [string, number, string?]]>>(undefined, ['CLUSTER', 'SLOTS']), this.timeoutMs)
    const byMaster = new Map<string, number[]>()
    for (const [start, end, master] of ranges) {
      const name = `${String(master[0])}:${String(master[1])}`
      const slots = byMaster.get(name) ?? []
      for (let slot = Number(start); slot <= Number(end); slot++) slots.push(slot)
      byMaster.set(name, slots)
    }
    this.#layout = [...byMaster.values()].map((slots) => ({ slots, keys: slots.map((slot) => `${this.keyPrefix}{${tagOfSlot(slot)}}${LOG_SUFFIX}`) }))
    return this.#layout
  }

  /** Every entry after position, up to a point every master has passed: one call per master, at once. */
  async read (after: string, spanMs = READ_SPAN_MS): Promise<ClusterRead> {
    const position = partsOf(after)
    const spanEnd = `${BigInt(position.id.split('-')[0]!) + BigInt(spanMs)}-${LAST_SEQ}`
    let layout = await this.#layoutOf()
    let replies: ChunkReply[]
    try {
      replies = await this.#readAll(layout, position.id, spanEnd)
    } catch (error) {
      if (!(error instanceof Error) || !MOVED.test(error.message)) throw error
      this.#layout = undefined
      layout = await this.#layoutOf()
      replies = await this.#readAll(layout, position.id, spanEnd)
    }
    let watermark = Infinity
    const spanLimit = `${spanEnd}-16383`
    let limit = spanLimit
    let lost: string | undefined
    const entries: FeedEntry[] = []
    for (const { slots, reply } of replies) {
      watermark = Math.min(watermark, Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000))
      for (let index = 2; index + 1 < reply.length; index += 2) {
        const slot = slots[Number(reply[index])]!
        const raw = reply[index + 1] as Array<[string, string[]]>
        const page = parseEntries(raw).filter((entry) => entry.id !== position.id || slot > position.slot)
        // A full page may have more after it: nothing of this slot past its last entry is known.
        if (raw.length === FEED_PAGE) {
          const last = `${raw.at(-1)![0]}-${slot}`
          if (compareIds(last, limit) < 0) limit = last
        }
        // Each entry names the one before it in its slot: the first one read names what was trimmed, if after the position.
        const previous = page[0] === undefined ? undefined : `${page[0].prev}-${slot}`
        if (previous !== undefined && compareIds(previous, after) > 0 && (lost === undefined || compareIds(previous, lost) > 0)) lost = previous
        for (const entry of page) entries.push({ ...entry, id: `${entry.id}-${slot}`, prev: `${entry.prev}-${slot}` })
      }
    }
    const now = `${watermark - 1}-${LAST_SEQ}-16383`
    let upTo = compareIds(now, limit) < 0 ? now : limit
    if (compareIds(upTo, after) < 0) upTo = after
    return { entries: entries.filter((entry) => compareIds(entry.id, upTo) <= 0).sort((a, b) => compareIds(a.id, b.id)), upTo, lost, now, spanFull: upTo === spanLimit }
  }

  /** One call per run of SLOT_FEEDS_PER_CALL slot feeds of a master, all at once: none holds Redis for long. */
  async #readAll (layout: Array<{ keys: string[], slots: number[] }>, from: string, to: string): Promise<ChunkReply[]> {
    const calls: Array<Promise<ChunkReply>> = []
    for (const { keys, slots } of layout) {
      for (let start = 0; start < keys.length; start += SLOT_FEEDS_PER_CALL) {
        const run = keys.slice(start, start + SLOT_FEEDS_PER_CALL)
        calls.push(redisCall(slotFeedsScript.run(this.redis, { feed: run[0]! }, { from, to, count: FEED_PAGE, others: run.slice(1) }), this.timeoutMs)
          .then((reply) => ({ slots: slots.slice(start, start + SLOT_FEEDS_PER_CALL), reply })))
      }
    }
    return await Promise.all(calls)
  }

  /** Hands each shared read (the position it starts from, and what it read) to listener, until the returned function is called. */
  watch (after: string, listener: ClusterReadListener): () => void {
    // A listener past the cursor takes what it lacks of the next read; one behind reads for itself.
    this.#cursor ??= after
    this.#listeners.add(listener)
    this.#timer ??= setInterval(() => { void this.#poll() }, CLUSTER_POLL_MS)
    return () => {
      this.#listeners.delete(listener)
      if (this.#listeners.size === 0) this.close()
    }
  }

  /** Stops polling (the last prefix stream ended, or the app closes). */
  close (): void {
    clearInterval(this.#timer)
    this.#timer = undefined
    this.#cursor = undefined
    this.#span = READ_SPAN_MS
  }

  async #poll (): Promise<void> {
    if (this.#polling || this.#cursor === undefined) return
    this.#polling = true
    try {
      const from = this.#cursor
      const read = await this.read(from, this.#span)
      if (this.#cursor !== from) return
      this.#span = nextSpan(read, this.#span)
      this.#cursor = read.upTo
      for (const listener of this.#listeners) listener(from, read)
    } catch (error) {
      this.onError(error as Error)
    } finally {
      this.#polling = false
    }
  }
}
