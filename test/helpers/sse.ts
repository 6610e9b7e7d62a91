import { request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { whenDone } from './cleanup.js'

export interface SseEvent {
  event: string
  id?: string
  data: string
}

/**
 * A text/event-stream read over a real loopback socket (inject() does not stream): its events as they
 * arrive, its comments counted, and waits bounded in time.
 */
export class SseClient {
  readonly events: SseEvent[] = []
  comments = 0
  /** The last `id:` the stream sent, with an event or alone: where an EventSource would resume from. */
  lastId: string | undefined
  ended = false
  #buffer = ''
  #response: IncomingMessage | undefined
  #destroy: () => void = () => {}

  static async open (app: FastifyInstance, url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as AddressInfo
    const client = new SseClient()
    await new Promise<void>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path: url, headers: { accept: 'text/event-stream', ...headers } }, (response) => {
        client.#response = response
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => client.#take(chunk))
        response.on('end', () => { client.ended = true })
        response.on('close', () => { client.ended = true })
        resolve()
      })
      request.on('error', (error) => { client.ended = true; reject(error) })
      request.end()
      client.#destroy = () => request.destroy()
    })
    whenDone(() => client.close())
    return client
  }

  get status (): number {
    return this.#response?.statusCode ?? 0
  }

  get headers (): IncomingMessage['headers'] {
    return this.#response?.headers ?? {}
  }

  /** The body of an answer that is not a stream (a problem). */
  get text (): string {
    return this.#buffer
  }

  /** Drops the connection, as a lost network would. */
  close (): void {
    this.#destroy()
    this.ended = true
  }

  /** Waits (bounded) until `count` events arrived; answers them all. */
  async waitForCount (count: number, timeoutMs = 10_000): Promise<SseEvent[]> {
    await until(() => this.events.length >= count, timeoutMs, () => `${this.events.length} of ${count} events arrived`)
    return this.events
  }

  /** Waits (bounded) for an event meeting the predicate. */
  async waitFor (predicate: (event: SseEvent) => boolean, timeoutMs = 10_000): Promise<SseEvent> {
    await until(() => this.events.some(predicate), timeoutMs, () => `no such event among ${JSON.stringify(this.events.slice(-5))}`)
    return this.events.find(predicate)!
  }

  async waitForEnd (timeoutMs = 10_000): Promise<void> {
    await until(() => this.ended, timeoutMs, () => 'the stream did not end')
  }

  #take (chunk: string): void {
    this.#buffer += chunk
    if (!this.#response?.headers['content-type']?.startsWith('text/event-stream')) return
    let at: number
    while ((at = this.#buffer.indexOf('\n\n')) !== -1) {
      const block = this.#buffer.slice(0, at)
      this.#buffer = this.#buffer.slice(at + 2)
      const event: SseEvent = { event: 'message', data: '' }
      let fields = 0
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) { this.comments++; continue }
        const colon = line.indexOf(':')
        const [name, value] = colon === -1 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')]
        if (name === 'event') event.event = value
        else if (name === 'id') event.id = this.lastId = value
        else if (name === 'data') event.data += (event.data === '' ? '' : '\n') + value
        else continue
        fields++
      }
      if (fields > 0 && (event.data !== '' || event.event !== 'message')) this.events.push(event)
    }
  }
}

/**
 * On an app serving one stream at most (MAX_STREAMS=1) with `open` open: a second stream, at url, is refused
 * with 503, and closing the app ends `open` with an end event saying so.
 */
export async function expectFullThenShutdown (app: FastifyInstance, open: SseClient, url: string): Promise<void> {
  const refused = await SseClient.open(app, url)
  await refused.waitForEnd()
  expect(refused.status).toBe(503)
  expect(refused.text).toContain('DOCS_ERR_STREAMS_FULL')
  await app.close()
  await open.waitForEnd()
  expect(open.events.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ reason: 'the service is shutting down' }) })
}

/** Polls check every 10 ms until it holds, at most timeoutMs. */
export async function until (check: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms: ${describe()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

type Json = null | boolean | number | string | Json[] | { [name: string]: Json }

/** Applies RFC 6902 add, replace and remove operations, as a client would (a test's own, not the service's code). */
export function applyPatch (document: Json, patch: ReadonlyArray<{ op: string, path: string, value?: Json }>): Json {
  let root = structuredClone(document)
  for (const { op, path, value } of patch) {
    if (path === '') {
      if (op === 'remove') throw new Error('cannot remove the root')
      root = structuredClone(value!)
      continue
    }
    const tokens = path.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    let parent: Json = root
    for (const token of tokens.slice(0, -1)) parent = Array.isArray(parent) ? parent[Number(token)]! : (parent as Record<string, Json>)[token]!
    const last = tokens.at(-1)!
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last)
      if (op === 'add') parent.splice(index, 0, structuredClone(value!))
      else if (op === 'replace') parent[index] = structuredClone(value!)
      else parent.splice(index, 1)
    } else if (typeof parent === 'object' && parent !== null) {
      if (op === 'remove') {
        if (!(last in parent)) throw new Error(`remove of a missing member ${path}`)
        Reflect.deleteProperty(parent, last)
      } else {
        if (op === 'replace' && !(last in parent)) throw new Error(`replace of a missing member ${path}`)
        parent[last] = structuredClone(value!)
      }
    } else {
      throw new Error(`no container at ${path}`)
    }
  }
  return root
}

/** What a subscriber holds after each event: the location's value (undefined: none) and ETag. */
export class Subscriber {
  value: Json | undefined
  etag: string | undefined
  lastId: string | undefined
  readonly seen: string[] = []

  apply (event: SseEvent): void {
    if (event.id !== undefined) {
      this.lastId = event.id
      if (event.event !== 'reset' && event.event !== 'end') this.seen.push(event.id)
    }
    const data = JSON.parse(event.data) as { value?: Json, patch?: Array<{ op: string, path: string, value?: Json }>, etag?: string }
    if (event.event === 'put') this.value = data.value
    else if (event.event === 'delete') this.value = undefined
    else if (event.event === 'patch') this.value = applyPatch(this.value!, data.patch!)
    else return
    this.etag = data.etag
  }
}
