import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { BadRequestError, StreamsFullError, StreamsOffError } from '../errors.js'
import { budgetIdentity, type Lifeline } from '../access/scopes.js'
import { VERIFIED_TOKEN_MS } from '../access/tokens.js'
import type { StreamSettings } from '../config.js'
import type { DocumentAddress } from '../documents/pointer.js'
import { LOG_SUFFIX, logOf, type EventFeedSettings } from '../documents/store/context.js'
import type { RedisConnection } from '../redis/connection.js'
import { catchUpBudget, type CatchUpAdmission } from './catch-up.js'
import { DocumentStream, type FrameCache } from './document-stream.js'
import { ClusterFeed } from './cluster-feed.js'
import { ClusterPrefixStream } from './cluster-prefix-stream.js'
import type { EventReader } from './event-reader.js'
import { isEntryId, loadKeptChanges, type FeedEntry } from './feed.js'
import type { EntryFollower } from './follower.js'
import { PrefixStream, type PrefixFrameCache } from './prefix-stream.js'
import { openReader } from './reader-connection.js'
import { SseWriter } from './sse.js'

export interface LivePluginOptions {
  connection: RedisConnection
  timeoutMs: number
  keyPrefix: string
  events: EventFeedSettings
  streams: StreamSettings
}

declare module 'fastify' {
  interface FastifyInstance {
    liveStreams: {
      /** Answers the request with a live stream of the location (text/event-stream), until either side ends it. */
      open (request: FastifyRequest, reply: FastifyReply, address: DocumentAddress): Promise<void>
      /**
       * Answers the request with a live stream of every document whose key starts with prefix and, unless
       * reach is 'all', with one of its prefixes (the caller's read scopes, as the listing bounds them).
       */
      openPrefix (request: FastifyRequest, reply: FastifyReply, prefix: string, reach: 'all' | readonly string[]): Promise<void>
      /** Streams open on this instance. */
      readonly count: number
    }
  }
}

/** A stream open on this instance, whichever it follows. */
type LiveStream = Pick<EntryFollower, 'start' | 'end' | 'heartbeat'>

interface Open {
  lifeline: Lifeline | undefined
}

/**
 * The resume point a client sends: Last-Event-ID (an EventSource reconnecting), else `?since=`; `withSlot`
 * for a prefix stream on a cluster, whose ids name the slot too.
 */
function resumePointOf (request: FastifyRequest, withSlot: boolean): string | undefined {
  const header = request.headers['last-event-id']
  const since = (request.query as Record<string, unknown> | undefined)?.since
  const given = typeof header === 'string' && header !== '' ? header : typeof since === 'string' ? since : undefined
  if (given !== undefined && !isEntryId(given, withSlot)) {
    throw new BadRequestError(`Last-Event-ID and ?since= take the id of an event of this stream, such as 1700000000000-0${withSlot ? '-0' : ''}`)
  }
  return given
}

/**
 * Live streams of documents: one shared reader of the events streams (its own Redis connection, opened with
 * the first stream), the streams open on this instance, their heartbeats, and the credentials they hang on
 * (a revoked token or an expiry ends them). Streams end cleanly when the app closes.
 */
export default fp<LivePluginOptions>(async function livePlugin (app, options) {
  const { streams: settings, events } = options
  const open = new Map<LiveStream, Open>()
  const frames: FrameCache = new WeakMap()
  /** Per entry whose changes were kept beside the log, their one read for every stream of the instance. */
  const keptReads = new WeakMap<FeedEntry, Promise<void>>()
  const prefixFrames: PrefixFrameCache = new WeakMap()
  let reader: Promise<EventReader> | undefined
  const clusterFeed = new ClusterFeed(app.redis, options.keyPrefix, options.timeoutMs,
    (error) => app.log.warn({ err: error }, `live streams: reading the slot feeds failed: ${error.message}`))
  let closing = false
  const catchUps = catchUpBudget(app.redisWrites, {
    keyPrefix: options.keyPrefix, timeoutMs: options.timeoutMs, readsPerMinute: settings.catchUpReads
  })

  const readerOf = () => {
    reader ??= openReader(options.connection, options.timeoutMs, app.redis,
      (error) => app.log.warn({ err: error }, `live streams: reading events failed: ${error.message}`))
      .catch((error: unknown) => {
        reader = undefined
        throw error
      })
    return reader
  }

  const heartbeats = setInterval(() => { for (const stream of open.keys()) stream.heartbeat() }, settings.heartbeatMs)
  heartbeats.unref()
  const checks = setInterval(() => { checkLifelines().catch(() => undefined) }, VERIFIED_TOKEN_MS)
  checks.unref()

  /** Ends the streams whose credentials expired or whose token is gone (one question per token, whatever its streams). */
  async function checkLifelines (): Promise<void> {
    const now = Date.now()
    const byToken = new Map<string, LiveStream[]>()
    for (const [stream, { lifeline }] of open) {
      if (lifeline?.expiresAt !== undefined && lifeline.expiresAt <= now) stream.end('the credentials expired')
      else if (lifeline?.tokenId !== undefined) byToken.set(lifeline.tokenId, [...byToken.get(lifeline.tokenId) ?? [], stream])
    }
    if (byToken.size === 0) return
    for (const id of await app.access.tokens.gone([...byToken.keys()])) {
      for (const stream of byToken.get(id)!) stream.end('the token was revoked or expired')
    }
  }

  /** Checks a stream may open here, then answers the request with the stream made, until either side ends it. */
  async function serve (request: FastifyRequest, reply: FastifyReply,
    make: (writer: SseWriter, shared: EventReader, onEnd: () => void, mayCatchUp: CatchUpAdmission) => LiveStream, withSlot = false): Promise<void> {
    if (events.maxLen === 0) throw new StreamsOffError('This service records no events (EVENTS_MAXLEN is 0): it serves no live streams')
    if (closing || open.size >= settings.max) {
      throw new StreamsFullError(`This instance serves MAX_STREAMS (${settings.max}) live streams at once; retry, or on another instance`)
    }
    const resumeFrom = resumePointOf(request, withSlot)
    const shared = await readerOf()
    reply.hijack()
    const writer = new SseWriter(reply.raw)
    writer.open(reply.getHeaders())
    const access = request.access
    const stream = make(writer, shared, () => open.delete(stream), catchUps(budgetIdentity(access, request.ip)))
    open.set(stream, { lifeline: access.kind === 'scoped' ? access.lifeline : undefined })
    reply.raw.once('close', () => stream.end())
    await stream.start(resumeFrom).catch(() => stream.end())
    writer.begin()
  }

  /**
   * Gives an entry whose changes were kept beside its log those changes (see loadKeptChanges): one read for
   * every stream of the instance that meets the entry. A read that failed is not kept: the next stream reads again.
   */
  function loadKept (entry: FeedEntry): Promise<void> {
    let read = keptReads.get(entry)
    if (read === undefined && entry.kept !== undefined && entry.redisKey?.startsWith(options.keyPrefix) === true) {
      const log = logOfKey(entry.redisKey.slice(options.keyPrefix.length))
      read = loadKeptChanges(app.redis, log, entry, options.timeoutMs).catch((error: unknown) => { keptReads.delete(entry); throw error })
      keptReads.set(entry, read)
    }
    return read ?? Promise.resolve()
  }

  const logOfKey = (key: string) => logOf({ keyPrefix: options.keyPrefix, redis: app.redis }, key)

  const followed = (shared: EventReader, stream: string, onEnd: () => void, mayCatchUp: CatchUpAdmission) =>
    ({ reader: shared, redis: app.redis, timeoutMs: options.timeoutMs, retentionMs: events.retentionMs, stream, onEnd, mayCatchUp })

  app.decorate('liveStreams', {
    get count () {
      return open.size
    },

    async open (request: FastifyRequest, reply: FastifyReply, address: DocumentAddress): Promise<void> {
      await serve(request, reply, (writer, shared, onEnd, mayCatchUp) => new DocumentStream(writer, {
        ...followed(shared, logOfKey(address.key), onEnd, mayCatchUp),
        redisKey: options.keyPrefix + address.key,
        catchUpEntries: events.maxLen,
        location: address.tokens,
        snapshot: () => app.documents.snapshot(address),
        entries: (from, stop, count, maxBytes) => app.documents.entriesOf(address.key, from, stop, count, maxBytes),
        frames,
        loadKept
      }))
    },

    async openPrefix (request: FastifyRequest, reply: FastifyReply, prefix: string, reach: 'all' | readonly string[]): Promise<void> {
      if (events.feedMaxLen === 0) {
        throw new StreamsOffError('This service keeps no feed of writes (EVENTS_FEED_MAXLEN is 0): it serves no live streams of a key prefix')
      }
      if (app.redis.isCluster) {
        await serve(request, reply, (writer, _shared, onEnd, mayCatchUp) => new ClusterPrefixStream(writer, {
          feed: clusterFeed, retentionMs: events.retentionMs, keyPrefix: options.keyPrefix, prefix, reach, frames: prefixFrames, onEnd, mayCatchUp, loadKept
        }), true)
        return
      }
      await serve(request, reply, (writer, shared, onEnd, mayCatchUp) => new PrefixStream(writer, {
        ...followed(shared, options.keyPrefix + LOG_SUFFIX, onEnd, mayCatchUp), keyPrefix: options.keyPrefix, prefix, reach, frames: prefixFrames, loadKept
      }))
    }
  })

  app.addHook('preClose', async () => {
    closing = true
    for (const stream of [...open.keys()]) stream.end('the service is shutting down')
  })
  app.addHook('onClose', async () => {
    clearInterval(heartbeats)
    clearInterval(checks)
    clusterFeed.close()
    if (reader !== undefined) await (await reader).close()
  })
}, { name: 'live', dependencies: ['redis', 'documents', 'access'], fastify: '5.x' })
