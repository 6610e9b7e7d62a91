import { clientError, JsondocsError } from './errors.js'
import type { Transport } from './http.js'
import { SseParser } from './sse.js'

export interface WatchOptions {
  /**
   * Called with what stops a watch (an answer that retrying cannot change: 401, 403, 404, 406), after which
   * it calls back no more, and with errors thrown by the callback, which do not stop it. By default
   * `console.error`.
   */
  onError?: (error: unknown) => void
  /** The longest wait between reconnections, in ms (10 s by default); waits double from 250 ms, jittered. */
  maxDelayMs?: number
}

/** Statuses a reconnection may get past: time-outs, rate limits, a busy or restarting service. */
const RETRIABLE = new Set([408, 425, 429, 500, 502, 503, 504])

/** Event ids in order: `<ms>-<seq>`, or `<ms>-<seq>-<slot>` on a Redis Cluster. */
export function compareIds (a: string, b: string): number {
  const left = a.split('-').map(Number)
  const right = b.split('-').map(Number)
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0)
    if (difference !== 0) return difference
  }
  return 0
}

/** A document version from its ETag (they only grow); undefined for a tag of another shape. */
export function versionOf (etag: string | undefined): bigint | undefined {
  const digits = /^"(\d+)"$/.exec(etag ?? '')?.[1]
  return digits === undefined ? undefined : BigInt(digits)
}

/** Whether `etag` names a version no newer than `held`. */
export function notNewer (etag: string | undefined, held: string | undefined): boolean {
  const version = versionOf(etag)
  const heldVersion = versionOf(held)
  return version !== undefined && heldVersion !== undefined && version <= heldVersion
}

/** Handles one event; `active()` says whether the watch still runs (it may stop while the handler reads). */
export type EventHandler = (event: string, data: Record<string, unknown>, id: string, active: () => boolean) => unknown

/**
 * Follows the server-sent events at `path` over fetch (the bearer token in its header, never in the URL),
 * handing each event to `handle` once, in order, and for ever: a stream that ends or drops is opened again
 * after a jittered, growing wait, resuming with `Last-Event-ID` after the last event handled (or the last
 * position a lone `id:` line gave). An event whose handling fails with a retriable error is received again.
 * Returns the function that stops it.
 */
export function follow (transport: Transport, path: string, handle: EventHandler, { onError = console.error, maxDelayMs = 10_000 }: WatchOptions = {}): () => void {
  const controller = new AbortController()
  let wake: () => void = () => {}
  let position: string | undefined
  let handled: string | undefined
  let failures = 0
  let baseDelay = 250

  const stop = () => {
    controller.abort()
    wake()
  }
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    wake = () => { clearTimeout(timer); resolve() }
  })

  async function receive (): Promise<void> {
    const response = await transport.send('GET', path, {
      headers: { accept: 'text/event-stream', ...(position === undefined ? {} : { 'last-event-id': position }) },
      signal: controller.signal
    })
    if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
      // Something between the client and the service answered in its place: retrying would not change it.
      const detail = `${path} answered ${response.headers.get('content-type')}, not text/event-stream`
      throw clientError({ status: response.status, code: 'NOT_A_STREAM', title: 'Not an event stream', detail })
    }
    if (!response.body) return
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    const parser = new SseParser()
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        for (const message of parser.feed(value)) {
          if (controller.signal.aborted) return
          failures = 0
          if (message.data === undefined) {
            if (message.id !== '') position = message.id
            continue
          }
          if (message.event === 'end') return
          if (message.id !== '' && handled !== undefined && compareIds(message.id, handled) <= 0) continue
          await handle(message.event, JSON.parse(message.data) as Record<string, unknown>, message.id, () => !controller.signal.aborted)
          if (controller.signal.aborted) return
          if (message.id !== '') position = handled = message.id
        }
        if (parser.retry !== undefined) baseDelay = parser.retry
      }
    } finally {
      reader.cancel().catch(() => {})
    }
  }

  async function run (): Promise<void> {
    while (!controller.signal.aborted) {
      try {
        await receive()
      } catch (error) {
        if (controller.signal.aborted) return
        if (error instanceof JsondocsError && !RETRIABLE.has(error.status)) {
          stop()
          onError(error)
          return
        }
      }
      if (controller.signal.aborted) return
      const ceiling = Math.min(maxDelayMs, baseDelay * 2 ** Math.min(failures++, 16))
      await pause(ceiling / 2 + Math.random() * ceiling / 2)
    }
  }
  void run()
  return stop
}

/** Calls `callback`, reporting what it throws to `onError` rather than to the stream. */
export function deliver (onError: (error: unknown) => void, callback: () => unknown): void {
  try {
    const result = callback()
    if (result instanceof Promise) result.catch(onError)
  } catch (error) {
    onError(error)
  }
}
