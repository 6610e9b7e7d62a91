import { DocumentRef } from './document.js'
import { prefixPath } from './address.js'
import type { Transport } from './http.js'
import { applyPatch, type StreamOperation } from './json-patch.js'
import { deliver, follow, notNewer, type WatchOptions } from './live.js'

export interface PrefixChange {
  /** The document's version after the change; undefined once it is deleted. */
  etag: string | undefined
  /** `put`, `patch`, `delete`, `changed`, or `reset` (with key null: reload what you hold). */
  event: string
  id: string
}

/** Every document whose key starts with a prefix. */
export class PrefixRef {
  readonly #transport: Transport
  readonly prefix: string

  constructor (transport: Transport, prefix: string) {
    this.#transport = transport
    this.prefix = prefix
  }

  /**
   * Calls back with each change to a document under the prefix the credentials may read, in the order
   * of the writes: `callback(key, value, { etag, event, id })`, `value` the whole document (undefined once
   * deleted). A patch to a document the watch has not seen whole, or a `changed` event, reads it (and
   * the stream's events it already holds are then skipped). `reset` calls back with key null: events were
   * lost, reload what you hold. The watch holds each document it has seen. Returns the function that stops it.
   */
  watch (callback: (key: string | null, value: unknown, change: PrefixChange) => unknown, options: WatchOptions = {}): () => void {
    const onError = options.onError ?? console.error
    const held = new Map<string, { value: unknown, etag: string | undefined }>()
    const read = (key: string) => new DocumentRef(this.#transport, key).get()
    return follow(this.#transport, prefixPath(this.prefix), async (event, data, id, active) => {
      if (event === 'reset') {
        held.clear()
        if (active()) deliver(onError, () => callback(null, undefined, { etag: undefined, event, id }))
        return
      }
      const key = data.key as string
      const etag = data.etag as string | undefined
      const known = held.get(key)
      if (known && notNewer(etag, known.etag)) return
      let now: { value: unknown, etag: string | undefined }
      if (event === 'put') now = { value: data.value, etag }
      else if (event === 'delete') now = { value: undefined, etag: undefined }
      else if (event === 'changed') now = await read(key)
      else if (event === 'patch') {
        try {
          if (!known) throw new Error('not held')
          now = { value: applyPatch(structuredClone(known.value), data.patch as StreamOperation[]), etag }
        } catch {
          now = await read(key)
        }
      } else return
      if (now.value === undefined) held.delete(key)
      else held.set(key, now)
      if (active()) deliver(onError, () => callback(key, now.value, { etag: now.etag, event, id }))
    }, { ...options, onError })
  }
}
