import type { Arg } from '../../redis/script-protocol.js'
import { pointerArgs } from '../pointer.js'

/*
 * What the document scripts' protocols share: how a pointer travels to the Lua resolver, and how the
 * scripts' replies, a status and what goes with it, become typed results.
 */

const pointerArg = (writing: boolean): Arg<readonly string[]> => ({
  write: (tokens, args) => { args.push(...pointerArgs(tokens, writing)) },
  lua: () => 'tokensArg()',
  single: false
})

/** A pointer's tokens as a read takes them: their count, then member step and index token per token. */
export const pointer = pointerArg(false)

/** A pointer's tokens as a write takes them (a last member whose step needs escapes goes by its JSON name). */
export const writtenPointer = pointerArg(true)

/** What a document script answers once it read or wrote: version, value and expiry (ms since epoch). */
export interface Succeeded<V> {
  status: 'ok' | 'created'
  version?: string
  value?: V
  expiresAt?: number
}

/** The reply of a document script: a status and what it carries. */
export type DocumentReply<V> =
  | Succeeded<V>
  | { status: 'notfound' | 'precondition' | 'wrongtype' | 'stale' | 'schemachanged' }
  /** A script at its work limit; a JSONPath query says how many values it would have visited. */
  | { status: 'toocostly', estimate?: string }
  /** A document (or a JSONPath's matches) past its size limit, and the size it would have had. */
  | { status: 'toolarge', size: number }
  /** A write previewed on a copy: its status, the version it saw, the whole document it would leave. */
  | { status: 'preview', outcome: string, base: string, document?: string }
  /** The operation at index (from 0) of a JSON Patch or of operations could not apply. */
  | { status: 'failed', index: number, reason: string, detail: string }
  | { status: 'badpath', message: string }

const given = (value: unknown) => value !== null && value !== undefined && value !== false

/** Parses a document script's reply; value parses what a script that succeeded answers as its value. */
export function documentReply<V> (value: (raw: unknown) => V): (raw: unknown) => DocumentReply<V> {
  return (raw) => {
    const [status, first, second, third] = raw as [string, unknown?, unknown?, unknown?]
    switch (status) {
      case 'ok':
      case 'created': {
        const reply: Succeeded<V> = { status }
        if (given(first)) reply.version = String(first)
        if (given(second)) reply.value = value(second)
        if (given(third)) reply.expiresAt = Number(third)
        return reply
      }
      case 'toocostly':
        return given(first) ? { status, estimate: String(first) } : { status }
      case 'toolarge':
        return { status, size: Number(first) }
      case 'preview':
        return given(third) ? { status, outcome: String(first), base: String(second), document: String(third) } : { status, outcome: String(first), base: String(second) }
      case 'failed':
        return { status, index: Number(first), reason: String(second), detail: given(third) ? String(third) : '' }
      case 'badpath':
        return { status, message: String(first) }
      default:
        return { status } as DocumentReply<V>
    }
  }
}

/** A value answered as JSON text. */
export const jsonText = (raw: unknown): string => String(raw)

/** A script that answers no value. */
export const noValue = (): undefined => undefined
