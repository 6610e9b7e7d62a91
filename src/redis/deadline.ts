import { ErrorReply } from 'redis'
import { RedisUnavailableError, ReplicationTimeoutError } from '../errors.js'

interface Pending {
  expiresAt: number
  reject: (error: Error) => void
}

/**
 * The calls still waiting, in the order they started. Calls sharing a timeout expire in that order too,
 * so one sweep per timeout finds the expired ones at the front. A per-call timer and promise race cost
 * more than the rest of a cached read.
 */
class DeadlineSweep {
  readonly #pending = new Set<Pending>()
  readonly #timeoutMs: number
  #timer: NodeJS.Timeout | undefined

  constructor (timeoutMs: number) {
    this.#timeoutMs = timeoutMs
  }

  /** The work's outcome, its failures passed through failure, or RedisUnavailableError once it is late. */
  bound<T> (work: Promise<T>, failure: (error: unknown) => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = { expiresAt: Date.now() + this.#timeoutMs, reject }
      this.#pending.add(pending)
      this.#arm()
      work.then(
        (value) => { this.#pending.delete(pending); resolve(value) },
        (error: unknown) => { this.#pending.delete(pending); reject(failure(error)) })
    })
  }

  /** Sweeps a quarter of the timeout apart while calls wait, so a call fails within 1.25 times it. */
  #arm (): void {
    if (this.#timer !== undefined) return
    this.#timer = setInterval(() => this.#sweep(), Math.max(1, Math.ceil(this.#timeoutMs / 4)))
    this.#timer.unref()
  }

  #sweep (): void {
    const now = Date.now()
    let late = false
    for (const pending of this.#pending) {
      if (pending.expiresAt > now) break
      this.#pending.delete(pending)
      pending.reject(new RedisUnavailableError(`no answer within ${this.#timeoutMs} ms`))
      late = true
    }
    if (this.#pending.size === 0) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
    if (late) for (const listener of lateCallListeners) listener()
  }
}

const sweeps = new Map<number, DeadlineSweep>()
const lateCallListeners = new Set<() => void>()

/**
 * Calls listener each time bounded calls are found past their deadline (once per sweep that finds
 * some), whichever client they went to; returns the function that stops it.
 */
export function onLateCalls (listener: () => void): () => void {
  lateCallListeners.add(listener)
  return () => { lateCallListeners.delete(listener) }
}

function bounded<T> (work: Promise<T>, timeoutMs: number, failure: (error: unknown) => unknown): Promise<T> {
  let sweep = sweeps.get(timeoutMs)
  if (!sweep) sweeps.set(timeoutMs, sweep = new DeadlineSweep(timeoutMs))
  return sweep.bound(work, failure)
}

/**
 * Bounds a Redis interaction in time. node-redis' own command timeout stops counting once a command is
 * written, so a Redis that stalls (CLIENT PAUSE, a long script, a saturated host) needs this too. The
 * command itself runs on; its late answer is dropped.
 */
export function withDeadline<T> (work: Promise<T>, timeoutMs: number): Promise<T> {
  return bounded(work, timeoutMs, (error) => error)
}

/**
 * Error replies of a Redis that cannot serve the call for now: a cluster without a master for the slot,
 * a slot on the move, a replica not yet promoted, a Redis loading its data.
 */
const UNAVAILABLE_REPLY = /^(CLUSTERDOWN|TRYAGAIN|MOVED|ASK|READONLY|LOADING|MASTERDOWN)\b/

/**
 * A Redis call bounded like withDeadline, where anything but Redis' own error reply (a lost connection,
 * a client that gave up), and replies saying Redis cannot serve it for now, become RedisUnavailableError,
 * the 503. Other error replies go through translateReply when given, else are left to the caller.
 */
export function redisCall<T> (
  work: Promise<T>, timeoutMs: number, translateReply: (error: ErrorReply) => Error = (error) => error
): Promise<T> {
  return bounded(work, timeoutMs, (error) => {
    if (error instanceof ErrorReply && !UNAVAILABLE_REPLY.test(error.message)) return translateReply(error)
    if (error instanceof ReplicationTimeoutError) return error
    return new RedisUnavailableError((error as Error).message ?? String(error))
  })
}
