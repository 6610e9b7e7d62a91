import { LruMap } from 'toad-cache'
import { redisCall } from '../redis/deadline.js'
import { LuaScript } from '../redis/lua-script.js'
import { number, protocol } from '../redis/script-protocol.js'
import type { CommandSender } from '../redis/redis.js'
import { RIGHTS, type Right } from './scopes.js'

/** One budget of RATE_LIMIT: this many requests per window, per credential (per client address without one). */
export interface RateLimit {
  /** `default`, or the right whose requests it counts: the policy's name in the RateLimit fields. */
  name: 'default' | Right
  count: number
  windowMs: number
  /** As written, for the RateLimit-Policy field. */
  windowSeconds: number
}

const UNITS: Record<string, number> = { second: 1, minute: 60, hour: 3600 }

/**
 * RATE_LIMIT's budgets by name. A request that needs a right counts against that right's budget when
 * there is one, else against `default`; with neither, it is not limited.
 */
export type RateLimits = ReadonlyMap<RateLimit['name'], RateLimit>

const BUDGET = new RegExp(`^\\s*(?:(${RIGHTS.join('|')})\\s*=\\s*)?([1-9][0-9]{0,8})\\s*/\\s*(second|minute|hour)\\s*$`)

/**
 * `600/minute`, `10/second`, `5000/hour`; budgets per right after it or instead, such as
 * `600/minute,write=60/minute`; or `off` (undefined).
 */
export function parseRateLimit (text: string): RateLimits | undefined {
  if (text.trim() === 'off') return undefined
  const limits = new Map<RateLimit['name'], RateLimit>()
  for (const part of text.split(',')) {
    const match = BUDGET.exec(part)
    if (!match) {
      throw new Error(`RATE_LIMIT: "${part.trim()}" is not [read=|write=|schema=]<count>/<second|minute|hour> (e.g. 600/minute or write=60/minute), nor is the whole off`)
    }
    const name = (match[1] ?? 'default') as RateLimit['name']
    if (limits.has(name)) throw new Error(`RATE_LIMIT: the ${name} budget is given twice`)
    const windowSeconds = UNITS[match[3]!]!
    limits.set(name, { name, count: Number(match[2]), windowMs: windowSeconds * 1000, windowSeconds })
  }
  return limits
}

/**
 * Grants what is left of the window's budget on the identity's counter, at most the units wanted: never
 * more than the limit in all, whatever the instances. Answers the units granted and the count after them.
 */
export const leaseScript = new LuaScript('rate-limit-lease', protocol({
  keys: ['counter'],
  args: { limit: number, wanted: number, ttlMs: number },
  reply: (raw) => {
    const [granted, used] = raw as [number, number]
    return { granted, used }
  }
}), `
local used = tonumber(redis.call('GET', counter) or '0')
local left = limit - used
if left <= 0 then return {0, used} end
local grant = math.min(wanted, left)
used = redis.call('INCRBY', counter, grant)
if used == grant then redis.call('PEXPIRE', counter, ttlMs) end
return {grant, used}
`)

/** Identities an instance keeps a lease for, at most; the least recently seen go first (and their units with them). */
const IDENTITIES_KEPT = 10_000
/** A lease takes at most this share of what the window has left, so that other instances keep theirs. */
const LEASE_SHARE = 16
const INFIX = '\u001fratelimit\u001f'

interface Lease {
  window: number
  /** Units leased and not spent yet. */
  available: number
  /** The window's count in Redis after the last lease. */
  used: number
  pending?: Promise<void>
}

export interface Admission {
  allowed: boolean
  /** What the window has left for this identity, as far as this instance knows. */
  remaining: number
  /** Seconds until the window ends. */
  resetSeconds: number
}

/**
 * Fixed windows whose counts live in Redis, shared by every instance: an instance leases a share of
 * what a window has left (one small script) and spends it locally, leasing again when it runs out. Far
 * from the limit a lease covers many requests; near it, one, so the count never passes the limit.
 * Units leased and left unspent by one instance are lost to the others until the window ends.
 */
export class RateLimiter {
  readonly #limit: RateLimit
  readonly #client: CommandSender
  readonly #keyPrefix: string
  readonly #timeoutMs: number
  readonly #leases = new LruMap<Lease>(IDENTITIES_KEPT)

  constructor (limit: RateLimit, client: CommandSender, { keyPrefix, timeoutMs }: { keyPrefix: string, timeoutMs: number }) {
    this.#limit = limit
    this.#client = client
    this.#keyPrefix = keyPrefix
    this.#timeoutMs = timeoutMs
  }

  get limit (): RateLimit {
    return this.#limit
  }

  /** admit without waiting, when a unit leased before is at hand; undefined when Redis must be asked. */
  admitNow (identity: string): Admission | undefined {
    const lease = this.#leases.get(identity)
    if (lease === undefined || lease.available === 0) return undefined
    const now = Date.now()
    const window = Math.floor(now / this.#limit.windowMs)
    if (lease.window !== window) return undefined
    lease.available--
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * this.#limit.windowMs - now) / 1000))
    return { allowed: true, remaining: this.#limit.count - lease.used + lease.available, resetSeconds }
  }

  /** Whether the identity may make one more request now; takes the unit when it may. */
  async admit (identity: string): Promise<Admission> {
    const now = Date.now()
    const window = Math.floor(now / this.#limit.windowMs)
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * this.#limit.windowMs - now) / 1000))
    let lease = this.#leases.get(identity)
    if (lease === undefined || lease.window !== window) {
      lease = { window, available: 0, used: 0 }
      this.#leases.set(identity, lease)
    }
    while (lease.available === 0 && lease.used < this.#limit.count) {
      lease.pending ??= this.#lease(identity, lease).finally(() => { lease.pending = undefined })
      await lease.pending
    }
    if (lease.available === 0) return { allowed: false, remaining: 0, resetSeconds }
    lease.available--
    return { allowed: true, remaining: this.#limit.count - lease.used + lease.available, resetSeconds }
  }

  /** Leases a share of what the window has left. */
  async #lease (identity: string, lease: Lease): Promise<void> {
    const left = this.#limit.count - lease.used
    const wanted = Math.max(1, Math.floor(left / LEASE_SHARE))
    const key = `${this.#keyPrefix}${INFIX}${this.#limit.name}${INFIX}${identity}${INFIX}${lease.window}`
    const { granted, used } = await redisCall(leaseScript.run(this.#client, { counter: key },
      { limit: this.#limit.count, wanted, ttlMs: this.#limit.windowMs + 1000 }), this.#timeoutMs)
    lease.available += granted
    lease.used = used
  }
}
