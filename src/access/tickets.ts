import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { redisCall } from '../redis/deadline.js'
import { LuaScript } from '../redis/lua-script.js'
import { number, optionalNumberText, protocol, text } from '../redis/script-protocol.js'
import type { CommandSender } from '../redis/redis.js'
import { RateLimiter, type Admission } from './rate-limit.js'
import type { Lifeline } from './scopes.js'

/**
 * Stream tickets: `jst.<id>.<secret>`, for clients that cannot send an Authorization header (a browser's
 * EventSource). A ticket opens live streams of one document (or of one key prefix, bounded by the read
 * prefixes the credential held under it), for read alone, for a short time, on behalf
 * of the credential that asked for it: it carries that credential's lifeline (a token's id, an expiry), so
 * that a ticket of a token revoked since is refused, and a stream it opened ends with the token. Redis keeps
 * the SHA-256 of the secret, never the secret, beside the tokens (control characters: never a document key).
 */
const TICKET_FORMAT = /^jst\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/
const TICKET_INFIX = '\u001fticket\u001f'

/**
 * What a ticket allows: reading the live streams of one document, or of one key prefix (only keys under one of
 * `reach`, the credential's read prefixes there as the listing bounds them), within a credential's lifeline.
 */
export interface Ticket {
  target: { key: string } | { prefix: string, reach: readonly string[] }
  /** The credential's name for rate limits, shared with the credential itself. */
  identity?: string
  lifeline: Lifeline
}

/**
 * Stores a ticket: the hash of its secret, its document key ('' for a prefix's ticket), identity, token id and
 * expiry, and for a prefix's ticket the prefix and its reach (a JSON list), for ttl ms.
 */
export const createTicketScript = new LuaScript('create-ticket', protocol({
  keys: ['ticket'],
  args: { hash: text, key: text, identity: text, token: text, expires: optionalNumberText, ttl: number, prefix: text, reach: text },
  reply: () => undefined
}), `
redis.call('HSET', ticket, 'hash', hash, 'key', key, 'identity', identity, 'token', token, 'expires', expires)
if reach ~= '' then redis.call('HSET', ticket, 'prefix', prefix, 'reach', reach) end
redis.call('PEXPIRE', ticket, ttl)
return 1
`)

function sha256 (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/**
 * Tickets one credential (one client address without one) may have made per STREAM_TICKET_TTL_MS window:
 * with tickets living one window, it holds at most twice as many at once, whatever RATE_LIMIT says.
 */
export const MAX_TICKETS_PER_WINDOW = 1000

export function createTicketStore (client: CommandSender, writer: CommandSender,
  { keyPrefix, timeoutMs, ttlMs }: { keyPrefix: string, timeoutMs: number, ttlMs: number }) {
  const keyOf = (id: string) => keyPrefix + TICKET_INFIX + id
  const bounded = <T>(work: Promise<T>) => redisCall(work, timeoutMs)
  const windowSeconds = Math.ceil(ttlMs / 1000)
  const quota = new RateLimiter({ name: 'default', count: MAX_TICKETS_PER_WINDOW, windowMs: windowSeconds * 1000, windowSeconds },
    writer, { keyPrefix: keyPrefix + TICKET_INFIX, timeoutMs })

  return {
    ttlMs,

    /** Whether the identity may make one more ticket in this window; takes it from the quota when it may. */
    admit (identity: string): Promise<Admission> {
      return quota.admit(identity)
    },

    /** A new ticket for ticket.target, living ttlMs (never past the credential's own expiry). */
    async create (ticket: Ticket): Promise<{ ticket: string, expiresAt: number }> {
      const id = randomBytes(16).toString('hex')
      const secret = randomBytes(32).toString('base64url')
      const { tokenId, expiresAt } = ticket.lifeline
      const ttl = Math.max(1, Math.min(ttlMs, expiresAt === undefined ? ttlMs : expiresAt - Date.now()))
      await bounded(createTicketScript.run(writer, { ticket: keyOf(id) }, {
        hash: sha256(secret).toString('hex'),
        key: 'key' in ticket.target ? ticket.target.key : '',
        identity: ticket.identity ?? '',
        token: tokenId ?? '',
        expires: expiresAt,
        ttl,
        prefix: 'prefix' in ticket.target ? ticket.target.prefix : '',
        reach: 'reach' in ticket.target ? JSON.stringify(ticket.target.reach) : ''
      }))
      return { ticket: `jst.${id}.${secret}`, expiresAt: Date.now() + ttl }
    },

    /** What a live ticket allows, else undefined. */
    async verify (text: string): Promise<Ticket | undefined> {
      const match = TICKET_FORMAT.exec(text)
      if (!match) return undefined
      const [, id, secret] = match as unknown as [string, string, string]
      const [hash, key, identity, token, expires, prefix, reach] = await bounded(client.send<Array<string | null>>(keyOf(id),
        ['HMGET', keyOf(id), 'hash', 'key', 'identity', 'token', 'expires', 'prefix', 'reach']))
      const target = key ? { key } : typeof prefix === 'string' && reach ? { prefix, reach: JSON.parse(reach) as string[] } : undefined
      if (!hash || target === undefined) return undefined
      const expected = Buffer.from(hash, 'hex')
      const given = sha256(secret)
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined
      const lifeline: Lifeline = {}
      if (token) lifeline.tokenId = token
      if (expires) lifeline.expiresAt = Number(expires)
      return { target, ...(identity ? { identity } : {}), lifeline }
    }
  }
}

export type TicketStore = ReturnType<typeof createTicketStore>

/** Whether text looks like a stream ticket (and so is never to be logged). */
export function looksLikeTicket (text: string): boolean {
  return text.startsWith('jst.')
}
