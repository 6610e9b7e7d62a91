import { documentPath } from './address.js'
import { JsondocsError } from './errors.js'
import { jsonOf, type Transport } from './http.js'
import { applyPatch, valueAt, type StreamOperation } from './json-patch.js'
import { deliver, follow, notNewer, type WatchOptions } from './live.js'
import type { JsonPatchOperation } from './types.js'

export interface Read<T = unknown> {
  /** The value at the location; undefined when there is none (no document, or nothing at the pointer). */
  value: T | undefined
  /** The document's version; undefined when there is no document. */
  etag: string | undefined
}

export interface Written<T = unknown> {
  etag: string
  /** The value now stored at the location, as the service answers it. */
  value: T
}

export interface Precondition {
  /** Writes only if the document is still at this version (`If-Match`); `*` for any existing document. */
  ifMatch?: string
}

export interface PutOptions extends Precondition {
  /** Writes only if the document does not exist (`If-None-Match: *`). */
  create?: boolean
  /** A time to live in seconds, set in the same step as the write. */
  ttl?: number
}

export interface UpdateOptions {
  /** How many times to read and write before giving up on concurrent writers (10). */
  tries?: number
}

/** What a watch's callback learns beside the value. */
export interface Change {
  /** The document's version after the change; undefined once it is deleted. */
  etag: string | undefined
  /** What the stream said: `put`, `patch` or `delete`. */
  event: string
  /** The stream's event id. */
  id: string
}

const MINIMAL = { prefer: 'return=minimal' }

function preconditions ({ ifMatch, create }: PutOptions): Record<string, string> {
  return { ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }), ...(create ? { 'if-none-match': '*' } : {}) }
}

const withTtl = (path: string, ttl: number | undefined) =>
  ttl === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}ttl=${ttl}`

function etagOf (response: Response): string {
  return response.headers.get('etag') ?? ''
}

/** A document, or a location inside one (a JSON Pointer). */
export class DocumentRef<T = unknown> {
  readonly #transport: Transport
  readonly #path: string
  readonly key: string
  readonly pointer: string

  constructor (transport: Transport, key: string, pointer = '') {
    this.#transport = transport
    this.#path = documentPath(key, pointer)
    this.key = key
    this.pointer = pointer
  }

  /** The value and version; `value` is undefined when nothing is there (a 404 does not throw). */
  async get (): Promise<Read<T>> {
    try {
      const response = await this.#transport.send('GET', this.#path, { headers: { accept: 'application/json' } })
      return { value: await jsonOf<T>(response), etag: etagOf(response) }
    } catch (error) {
      if (error instanceof JsondocsError && error.code === 'DOCS_ERR_NOT_FOUND') return { value: undefined, etag: undefined }
      throw error
    }
  }

  /** Writes the whole value at the location. */
  async put (value: T, options: PutOptions = {}): Promise<{ etag: string }> {
    const response = await this.#transport.send('PUT', withTtl(this.#path, options.ttl), { body: value, headers: { ...MINIMAL, ...preconditions(options) } })
    return { etag: etagOf(response) }
  }

  /** A merge patch (RFC 7396) at the location: objects merge, `null` removes a member. */
  async merge (patch: unknown, options: Precondition & { ttl?: number } = {}): Promise<Written<T>> {
    const response = await this.#transport.send('PATCH', withTtl(this.#path, options.ttl), {
      body: patch, contentType: 'application/merge-patch+json', headers: preconditions(options)
    })
    return { etag: etagOf(response), value: await jsonOf<T>(response) }
  }

  /** A JSON Patch (RFC 6902), paths relative to the location, applied whole or not at all. */
  async patch (operations: JsonPatchOperation[], options: Precondition & { ttl?: number } = {}): Promise<Written<T>> {
    const response = await this.#transport.send('PATCH', withTtl(this.#path, options.ttl), {
      body: operations, contentType: 'application/json-patch+json', headers: preconditions(options)
    })
    return { etag: etagOf(response), value: await jsonOf<T>(response) }
  }

  /** Deletes the location (the document, at the root); a 404 throws. */
  async remove (options: Precondition = {}): Promise<{ etag: string | undefined }> {
    const response = await this.#transport.send('DELETE', this.#path, { headers: preconditions(options) })
    return { etag: response.headers.get('etag') ?? undefined }
  }

  /**
   * Reads, computes the next value with `change` (given undefined when nothing is there), and writes it only
   * if no one wrote in between (`If-Match`, or `If-None-Match: *` to create the document); on a 412 reads
   * again and retries, `tries` times at most, then throws the 412. `change` returning undefined deletes.
   */
  async update (change: (value: T | undefined) => T | undefined | Promise<T | undefined>, { tries = 10 }: UpdateOptions = {}): Promise<Read<T>> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.#current()
      const next = await change(current.value === undefined ? undefined : structuredClone(current.value))
      const condition: PutOptions = current.etag === undefined ? { create: true } : { ifMatch: current.etag }
      try {
        if (next === undefined) {
          if (current.value === undefined) return { value: undefined, etag: current.etag }
          const { etag } = await this.remove(condition)
          return { value: undefined, etag }
        }
        const { etag } = await this.put(next, condition)
        return { value: next, etag }
      } catch (error) {
        if (!(error instanceof JsondocsError && error.status === 412) || attempt >= tries) throw error
      }
    }
  }

  /**
   * The value and the version it belongs to. A location that is absent says no version (a 404 has no
   * ETag), so its document is read whole: the value there, absent or not, and the document's version.
   */
  async #current (): Promise<Read<T>> {
    const read = await this.get()
    if (read.etag !== undefined || this.pointer === '') return read
    const whole = await new DocumentRef(this.#transport, this.key).get()
    return { value: valueAt(whole.value, this.pointer) as T | undefined, etag: whole.etag }
  }

  /**
   * Keeps the location's value current: `callback(value, { etag, event, id })` at once with the value, and
   * after every write that changes it (undefined once it is deleted), from the live stream. It resumes
   * after dropped connections without missing or repeating a change; `reset` needs nothing of it, since the
   * stream then sends the value afresh. Each value is a new object, the client's own: do not change it.
   * Returns the function that stops the watch.
   */
  watch (callback: (value: T | undefined, change: Change) => unknown, options: WatchOptions = {}): () => void {
    const onError = options.onError ?? console.error
    let value: T | undefined
    let etag: string | undefined
    return follow(this.#transport, this.#path, async (event, data, id, active) => {
      if (event === 'put') {
        value = data.value as T
        etag = data.etag as string
      } else if (event === 'delete') {
        value = etag = undefined
      } else if (event === 'patch') {
        if (notNewer(data.etag as string, etag)) return
        try {
          value = applyPatch(structuredClone(value), data.patch as StreamOperation[]) as T
          etag = data.etag as string
        } catch {
          // What the stream said does not apply to what it sent before: read the value as it is now.
          ({ value, etag } = await this.get())
        }
      } else {
        return
      }
      if (active()) deliver(onError, () => callback(value, { etag, event, id }))
    }, { ...options, onError })
  }
}
