/**
 * jsondocs for browsers and Node 24: documents with their versions, conflict-safe updates, queries page
 * by page, aggregations, and live values that survive dropped connections. One module, no dependencies.
 */
import { CollectionRef } from './collection.js'
import { DocumentRef } from './document.js'
import { transport } from './http.js'
import { PrefixRef } from './prefix.js'
import type { ConnectOptions } from './types.js'

export { JsondocsError } from './errors.js'
export { CollectionRef } from './collection.js'
export { DocumentRef } from './document.js'
export { PrefixRef } from './prefix.js'
export { applyPatch } from './json-patch.js'
export { SseParser } from './sse.js'
export type { Change, PutOptions, Precondition, Read, UpdateOptions, Written } from './document.js'
export type { PrefixChange } from './prefix.js'
export type { WatchOptions } from './live.js'
export type * from './types.js'

export interface Database {
  /** A document, or with a JSON Pointer (RFC 6901) a location inside it. */
  doc<T = unknown> (key: string, pointer?: string): DocumentRef<T>
  collection (name: string): CollectionRef
  /** Every document whose key starts with `prefix`, to watch. */
  prefix (prefix: string): PrefixRef
}

/** A client of the service at `baseUrl` ('' for the page's origin) with `token` (a string, or a function giving it). */
export function connect (options: ConnectOptions = {}): Database {
  const http = transport(options)
  return {
    doc: (key, pointer) => new DocumentRef(http, key, pointer),
    collection: (name) => new CollectionRef(http, name),
    prefix: (prefix) => new PrefixRef(http, prefix)
  }
}
