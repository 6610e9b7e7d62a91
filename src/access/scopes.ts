/**
 * The access model: a scope grants rights on every key that starts with its prefix, byte for byte. A
 * prefix meant to stop at a boundary ends with the separator (`users:42:`): `users:42` also reaches
 * `users:420`. Pure: no fastify, no Redis.
 */

export const RIGHTS = ['read', 'write', 'schema'] as const
export type Right = typeof RIGHTS[number]

export interface Scope {
  prefix: string
  rights: Right[]
}

/**
 * What a request may do: everything (the admin token, or a service with no authentication configured),
 * or what its scopes grant. `credential` says how it was obtained, for 401/403 answers; `identity` names the
 * credential (never its secret) for rate limits.
 */
export type Access =
  | { kind: 'admin' }
  | {
    kind: 'scoped'
    scopes: readonly Scope[]
    credential: 'token' | 'jwt' | 'anonymous' | 'ticket'
    identity?: string
    /** Until when the credential holds, for what outlives a request (a live stream). */
    lifeline?: Lifeline
    /** A stream ticket's document: the one key it opens streams of. */
    ticketKey?: string
    /** A stream ticket's key prefix: the one prefix it opens streams of (its scopes bound the keys shown). */
    ticketPrefix?: string
  }

/** What a credential's life hangs on: a token that may be revoked (its id), an expiry (epoch ms). */
export interface Lifeline {
  tokenId?: string
  expiresAt?: number
}

export const ADMIN: Access = { kind: 'admin' }

/** A key is reachable for a right when a scope holding that right has a prefix the key starts with. */
/** Whom a budget (rate limits, stream tickets, catch-up reads) counts a request against: its credential, else its client's address. */
export function budgetIdentity (access: Access, address: string): string {
  return (access.kind === 'scoped' ? access.identity : undefined) ?? 'address:' + address
}

export function reaches (access: Access, right: Right, key: string): boolean {
  if (access.kind === 'admin') return true
  return access.scopes.some((scope) => key.startsWith(scope.prefix) && scope.rights.includes(right))
}

/** A collection's schema is reachable when `collection + separator` starts with a scope's prefix holding `schema`. */
export function reachesCollection (access: Access, collection: string, separator: string): boolean {
  return reaches(access, 'schema', collection + separator)
}

/** Whether the access holds the right anywhere at all. */
export function holdsAnywhere (access: Access, right: Right): boolean {
  return access.kind === 'admin' || access.scopes.some((scope) => scope.rights.includes(right))
}

/**
 * How a listing of keys starting with `prefix` is bounded: 'all' when a read scope covers the whole
 * prefix, the narrower read prefixes under it whose keys may be returned, or 'none'.
 */
export function listingReach (access: Access, prefix: string): 'all' | 'none' | string[] {
  if (access.kind === 'admin') return 'all'
  const readable = access.scopes.filter((scope) => scope.rights.includes('read')).map((scope) => scope.prefix)
  if (readable.some((granted) => prefix.startsWith(granted))) return 'all'
  const narrower = readable.filter((granted) => granted.startsWith(prefix))
  return narrower.length === 0 ? 'none' : narrower
}

/**
 * Reads a list of scopes from a setting's JSON text; a bad one throws a sentence naming the setting.
 * Placeholders such as `{sub}` are left as they are (see the JWT scopes template).
 */
export function parseScopes (text: string, setting: string): Scope[] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new Error(`${setting} is not JSON: a list of {"prefix","rights"} is expected`)
  }
  if (!Array.isArray(value)) throw new Error(`${setting} must be a JSON list of {"prefix","rights"}`)
  return value.map((item: unknown, index) => {
    const scope = item as Partial<Scope> | null
    const keys = scope && typeof scope === 'object' ? Object.keys(scope) : []
    if (typeof scope?.prefix !== 'string' || !Array.isArray(scope.rights) || scope.rights.length === 0 ||
      keys.some((key) => key !== 'prefix' && key !== 'rights') ||
      scope.rights.some((right) => !(RIGHTS as readonly string[]).includes(right)) ||
      /\p{Cc}/u.test(scope.prefix)) {
      throw new Error(`${setting}[${index}] must be {"prefix":string,"rights":[${RIGHTS.map((r) => `"${r}"`).join(',')}...]}`)
    }
    return { prefix: scope.prefix, rights: [...new Set(scope.rights)] }
  })
}
