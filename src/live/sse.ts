import type { ServerResponse } from 'node:http'
import type { FastifyRequest } from 'fastify'

/** Whether a request asks for a live stream: a GET that accepts text/event-stream. */
export function wantsEventStream (request: FastifyRequest): boolean {
  return request.method === 'GET' && request.headers.accept?.toLowerCase().includes('text/event-stream') === true
}

/** Reconnection delay a browser's EventSource is told to use, in ms. */
const RETRY_MS = 1000
/**
 * Bytes of events a stream may have waiting for a client that does not read: past them the stream ends
 * (the client resumes from its last event), rather than the instance holding more and more.
 */
export const MAX_UNSENT_BYTES = 4 * 1024 * 1024

/**
 * A text/event-stream response: named events with ids, comments as heartbeats. Its head goes out with the
 * first line the stream writes, once the stream knows where it starts: a client that writes as soon as it
 * has the head is sure to get the event of its write.
 */
export class SseWriter {
  #ended = false
  #head: Record<string, string | string[] | number> = {}
  /** Whether the head went out. */
  #begun = false

  constructor (private readonly response: ServerResponse) {}

  get ended (): boolean {
    return this.#ended || this.response.destroyed
  }

  /** Takes the headers the request's hooks set (request id, CORS, rate limits), sent with the first line. */
  open (headers: Record<string, string | string[] | number | undefined>): void {
    const head: Record<string, string | string[] | number> = {}
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) head[name] = value
    this.#head = head
  }

  /** Sends an event whose data is one line of JSON text; false when the client reads too slowly and the stream must end. */
  event (name: string, id: string, json: string): boolean {
    if (this.ended) return false
    this.#write(`event: ${name}\nid: ${id}\ndata: ${json}\n\n`)
    return this.response.writableLength <= MAX_UNSENT_BYTES
  }

  /** Moves the client's resume point (an EventSource's last event id) on without an event. */
  position (id: string): void {
    if (!this.ended) this.#write(`id: ${id}\n\n`)
  }

  /** Keeps a stream that has begun open, moving its resume point on to id when given; nothing before it begins. */
  heartbeat (id?: string): void {
    if (!this.ended && this.#begun) this.response.write(id === undefined ? ':\n\n' : `id: ${id}\n\n`)
  }

  end (): void {
    if (this.#ended) return
    this.#ended = true
    if (this.response.destroyed) return
    this.#sendHead()
    this.response.end()
  }

  /** Sends the head, if no line has yet: once the stream has started, whether or not it had anything to say. */
  begin (): void {
    if (!this.ended) this.#sendHead()
  }

  #write (text: string): void {
    this.#sendHead()
    this.response.write(text)
  }

  #sendHead (): void {
    if (this.#begun) return
    this.#begun = true
    this.response.writeHead(200, {
      ...this.#head,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies that buffer answers (nginx) pass this one on as it comes.
      'x-accel-buffering': 'no'
    })
    this.response.write(`retry: ${RETRY_MS}\n\n`)
  }
}
