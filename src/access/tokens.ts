import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { redisCall } from '../redis/deadline.js'
import { LuaScript } from '../redis/lua-script.js'
import { number, optionalNumberText, protocol, text } from '../redis/script-protocol.js'
import type { CommandSender } from '../redis/redis.js'
import type { Lifeline, Scope } from './scopes.js'

/**
 * Bearer tokens: `jdt.<id>.<secret>`, the secret 256 random bits. Redis keeps, under the id, the
 * SHA-256 of the secret and never the secret: a hash of 256 random bits cannot be searched back, so a
 * slow password hash would add nothing but cost to every lookup. Keys hold control characters, which no
 * document key can, so tokens live beside documents and never among them; a token's TTL is its key's.
 */
const TOKEN_FORMAT = /^jdt\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/
const TOKEN_INFIX = '\u001ftoken\u001f'
const INDEX_SUFFIX = '\u001ftokens'

/** How long an instance trusts a token it verified: a revocation reaches every instance within it. */
export const VERIFIED_TOKEN_MS = 1000

export interface TokenInfo {
  id: string
  label?: string
  scopes: Scope[]
  createdAt: string
  /** When the token stops working, if it has a time to live. */
  expiresAt?: string
}

/**
 * What a credential grants, until when (epoch ms) an instance may trust it without asking again, and
 * what its life hangs on.
 */
export interface Verified { scopes: Scope[], until: number, lifeline: Lifeline }

/** Stores a token: the hash of its secret, its scopes as JSON, its label, when it was created and its ttl. */
export const createTokenScript = new LuaScript('create-token', protocol({
  keys: ['token'],
  args: { secretHash: text, scopes: text, label: text, created: number, ttlMs: optionalNumberText },
  reply: () => undefined
}), `
redis.call('HSET', token, 'hash', secretHash, 'scopes', scopes, 'label', label, 'created', created)
if ttlMs ~= '' then redis.call('PEXPIRE', token, ttlMs) end
return 1
`)

function sha256 (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/**
 * The tokens every instance sharing the Redis knows. A token and the index that lists it are keys in
 * slots of their own (a cluster may hold them on different masters), so they change one after the
 * other, in the order that never leaves a token unlisted: listed before it exists, unlisted after it is
 * gone. The listing skips what is listed but gone.
 */
export function createTokenStore (client: CommandSender, writer: CommandSender, { keyPrefix, timeoutMs }: { keyPrefix: string, timeoutMs: number }) {
  const indexKey = keyPrefix + INDEX_SUFFIX
  const keyOf = (id: string) => keyPrefix + TOKEN_INFIX + id
  const bounded = <T>(work: Promise<T>) => redisCall(work, timeoutMs)

  return {
    async create (scopes: Scope[], ttlSeconds: number | undefined, label: string | undefined): Promise<{ id: string, token: string }> {
      const id = randomBytes(16).toString('hex')
      const secret = randomBytes(32).toString('base64url')
      const ttlMs = ttlSeconds === undefined ? undefined : Math.max(1, Math.round(ttlSeconds * 1000))
      const created = Date.now()
      const expires = ttlMs === undefined ? '+inf' : String(created + ttlMs)
      await bounded(writer.send(indexKey, ['ZADD', indexKey, expires, id]))
      await bounded(createTokenScript.run(writer, { token: keyOf(id) },
        { secretHash: sha256(secret).toString('hex'), scopes: JSON.stringify(scopes), label: label ?? '', created, ttlMs }))
      return { id, token: `jdt.${id}.${secret}` }
    },

    /** The scopes of a bearer string that is a live token, for at most VERIFIED_TOKEN_MS; else undefined. */
    async verify (bearer: string): Promise<Verified | undefined> {
      const now = Date.now()
      const match = TOKEN_FORMAT.exec(bearer)
      if (!match) return undefined
      const [, id, secret] = match as unknown as [string, string, string]
      // Sent together: node-redis writes both in one round trip.
      const [[hash, scopes], ttl] = await bounded(Promise.all([
        client.send<[string | null, string | null]>(keyOf(id), ['HMGET', keyOf(id), 'hash', 'scopes']),
        client.send<number>(keyOf(id), ['PTTL', keyOf(id)])
      ]))
      if (hash === null || scopes === null) return undefined
      const expected = Buffer.from(hash, 'hex')
      const given = sha256(secret)
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined
      return {
        scopes: JSON.parse(scopes) as Scope[],
        until: now + Math.min(VERIFIED_TOKEN_MS, ttl >= 0 ? ttl : VERIFIED_TOKEN_MS),
        lifeline: ttl >= 0 ? { tokenId: id, expiresAt: now + ttl } : { tokenId: id }
      }
    },

    /** Which of the tokens (by id) are gone: revoked or expired. */
    async gone (ids: readonly string[]): Promise<Set<string>> {
      const exists = await bounded(Promise.all(ids.map((id) => client.send<number>(keyOf(id), ['EXISTS', keyOf(id)]))))
      return new Set(ids.filter((_, index) => exists[index] === 0))
    },

    /** Every live token, without secrets; forgets the expired ones on the way. */
    async list (): Promise<TokenInfo[]> {
      await bounded(client.send(indexKey, ['ZREMRANGEBYSCORE', indexKey, '-inf', String(Date.now())]))
      const ids = await bounded(client.send<string[]>(indexKey, ['ZRANGE', indexKey, '0', '-1']))
      const records = await bounded(Promise.all(ids.map((id) =>
        client.send<Array<string | null>>(keyOf(id), ['HMGET', keyOf(id), 'scopes', 'label', 'created']))))
      const expiries = await bounded(Promise.all(ids.map((id) => client.send<number>(keyOf(id), ['PTTL', keyOf(id)]))))
      return ids.flatMap((id, index) => {
        const [scopes, label, created] = records[index]!
        if (scopes === null || scopes === undefined) return []
        const ttl = expiries[index]!
        return [{
          id,
          ...(label ? { label } : {}),
          scopes: JSON.parse(scopes) as Scope[],
          createdAt: new Date(Number(created)).toISOString(),
          ...(ttl >= 0 ? { expiresAt: new Date(Date.now() + ttl).toISOString() } : {})
        }]
      })
    },

    /** Revokes a token on every instance (within VERIFIED_TOKEN_MS); false when there was none. */
    async revoke (id: string): Promise<boolean> {
      if (!/^[0-9a-f]{32}$/.test(id)) return false
      const removed = await bounded(writer.send<number>(keyOf(id), ['DEL', keyOf(id)]))
      await bounded(writer.send(indexKey, ['ZREM', indexKey, id]))
      return removed === 1
    }
  }
}

export type TokenStore = ReturnType<typeof createTokenStore>
