import type { components } from '../../openapi/client/schema.js'

type Schemas = components['schemas']

/** A problem (RFC 9457) as the service answers it. */
export type Problem = Schemas['Problem']
/** One RFC 6902 operation, as `doc.patch` sends them. */
export type JsonPatchOperation = Schemas['JsonPatchOperation']
/** A query: its page size (`limit`) and cursor are the client's to manage. */
export type QueryRequest = Omit<Schemas['QueryRequest'], 'limit' | 'cursor'> & { limit?: number }
export type QueryItem = Schemas['QueryItem']
export type QueryPage = Schemas['QueryPage']
export type AggregateRequest = Omit<Schemas['AggregateRequest'], 'limit'> & { limit?: number }
export type AggregateAnswer = Schemas['AggregateAnswer']

/** Credentials: a bearer token, or a function giving the current one (asked before every request). */
export type Token = string | (() => string | undefined | Promise<string | undefined>)

export interface ConnectOptions {
  /** The service's URL (with its BASE_PATH); '' for the page's own origin. */
  baseUrl?: string
  token?: Token
  /** fetch to use; by default the global one. */
  fetch?: typeof fetch
}
