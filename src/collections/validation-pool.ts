import type { FastifyBaseLogger } from 'fastify'
import { InvalidSchemaError, limitExceeded, ServiceBusyError, withExtensions } from '../errors.js'
import type { SchemaRefusal, SchemaSource, ValidationJob } from './validation-protocol.js'
import { ValidationWorkerSlot, type JobEnd } from './validation-worker-slot.js'
import type { Violation } from './validator.js'

export interface ValidationSettings {
  /** Worker time one request may spend compiling or validating, in ms (MAX_VALIDATION_MS). */
  maxMs: number
  /** Validation workers (VALIDATION_WORKERS). */
  workers: number
  /** Heap each worker may use, in MiB (MAX_VALIDATION_MEMORY_MB). */
  memoryMb: number
  /** Characters of documents and schemas the jobs waiting for a worker may hold; by default MAX_WAITING_CHARACTERS. */
  maxWaitingCharacters?: number
}

/** What one request may still spend in the workers, in ms; each job it runs takes its time from it. */
export interface ValidationBudget {
  remainingMs: number
}

/** A document to check against a schema. */
export interface ValidationRequest {
  schema: SchemaSource
  document: string
}

export interface ValidationResults {
  /** Each document's violations (undefined when it conforms), in order; fewer than asked when incomplete. */
  results: Array<Violation[] | undefined>
  /** False when the budget or a worker ran out before every document was checked. */
  complete: boolean
}

export interface ValidateOptions {
  /** Violations kept per document. */
  maxErrors?: number
  /** Answer what was checked when the budget or a worker runs out, rather than throwing. */
  partial?: boolean
  /** What the problem says of a write refused over a limit. */
  consequence?: string
}

/** Jobs waiting for a worker, at most; more are 503 at once. */
const MAX_WAITING_JOBS = 1024
/**
 * Characters of documents and schema texts the waiting jobs hold, at most (64 Mi, 128 MiB to 256 MiB of
 * strings); a job that would pass it is 503 at once. Without it 1024 jobs of 1 MiB documents would hold
 * a gigabyte and more.
 */
export const MAX_WAITING_CHARACTERS = 64 * 1024 * 1024
const MAX_VIOLATIONS = 50

interface Waiting {
  keys: readonly string[]
  characters: number
  begin (slot: ValidationWorkerSlot): void
  timer: NodeJS.Timeout
}

/**
 * Compiles collection schemas and validates documents in worker threads, so that no schema or document
 * holds the event loop. Each job runs within its request's budget (MAX_VALIDATION_MS): past it the worker
 * is terminated and replaced and the request is 422. A job waits at most as long for a worker, then 503.
 */
export class ValidationPool {
  readonly #settings: ValidationSettings
  readonly #slots: ValidationWorkerSlot[]
  #waiting: Waiting[] = []
  #waitingCharacters = 0
  #nextId = 0

  constructor (settings: ValidationSettings, log: FastifyBaseLogger) {
    this.#settings = settings
    this.#slots = Array.from({ length: settings.workers }, () =>
      new ValidationWorkerSlot({ memoryMb: settings.memoryMb, log, onIdle: () => { this.#dispatch() } }))
  }

  /** Starts every worker; rejects when one cannot start. */
  async start (): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.start()))
  }

  async close (): Promise<void> {
    for (const waiting of this.#waiting.splice(0)) clearTimeout(waiting.timer)
    this.#waitingCharacters = 0
    await Promise.all(this.#slots.map((slot) => slot.close()))
  }

  /** Jobs running in a worker and jobs waiting for one (and the characters they hold), now, and the workers ready for a job. */
  activity (): { running: number, waiting: number, waitingCharacters: number, idle: number } {
    return {
      running: this.#slots.filter((slot) => slot.busy).length,
      waiting: this.#waiting.length,
      waitingCharacters: this.#waitingCharacters,
      idle: this.#slots.filter((slot) => slot.idle).length
    }
  }

  /** The budget of one request. */
  budget (): ValidationBudget {
    return { remainingMs: this.#settings.maxMs }
  }

  /**
   * Checks a schema (meta-schema, patterns) and compiles it in a worker, which keeps it: 400
   * InvalidSchemaError when it is unusable, 422 past MAX_VALIDATION_MS. A schema a worker holds is known good.
   */
  async compile (schema: SchemaSource, consequence: string): Promise<void> {
    if (this.#slots.some((slot) => slot.held.has(schema.key))) return
    const end = await this.#submit([schema.key], schema.text.length, this.budget(), (id) => ({ kind: 'compile', id, schema }))
    if (end.kind !== 'outcome') throw this.#failure(end, `Compiling the schema`, consequence)
    if (end.outcome.status === 'invalid') throw invalidSchema(end.outcome.refusal)
    if (end.outcome.status !== 'done') throw new Error(`The validation worker answered ${end.outcome.status}`)
  }

  /** Validates documents in one job, within the budget. */
  async validate (requests: readonly ValidationRequest[], budget: ValidationBudget,
    { maxErrors = MAX_VIOLATIONS, partial = false, consequence = 'nothing was written' }: ValidateOptions = {}): Promise<ValidationResults> {
    if (requests.length === 0) return { results: [], complete: true }
    const sources = new Map(requests.map(({ schema }) => [schema.key, schema]))
    const items = requests.map(({ schema, document }) => ({ schema: schema.key, document }))
    let characters = 0
    for (const { document } of items) characters += document.length
    for (const { text } of sources.values()) characters += text.length
    const submit = (everyText: boolean) => this.#submit([...sources.keys()], characters, budget, (id, slot) => ({
      kind: 'validate',
      id,
      schemas: [...sources.values()].filter(({ key }) => everyText || !slot.held.has(key)),
      items,
      maxErrors,
      budgetMs: budget.remainingMs
    }), partial)
    let end = await submit(false)
    // A worker that lost a schema this pool thought it held: sent every text, once.
    if (end.kind === 'outcome' && end.outcome.status === 'missing') end = await submit(true)
    if (end.kind !== 'outcome') {
      if (partial) return { results: [], complete: false }
      throw this.#failure(end, 'Validating the write', consequence)
    }
    const { outcome } = end
    if (outcome.status === 'invalid') throw invalidSchema(outcome.refusal)
    if (outcome.status !== 'done') throw new Error(`The validation worker answered ${outcome.status}`)
    const results = outcome.results.map((violations) => violations ?? undefined)
    if (results.length === requests.length) return { results, complete: true }
    if (partial) return { results, complete: false }
    throw this.#failure({ kind: 'timeout' }, 'Validating the write', consequence)
  }

  /**
   * Runs a job on a worker, preferring one that holds its schemas; a wait past MAX_VALIDATION_MS is 503,
   * and so is a job that would pass the waiting line's bounds (jobs, characters).
   */
  #submit (keys: readonly string[], characters: number, budget: ValidationBudget,
    job: (id: number, slot: ValidationWorkerSlot) => ValidationJob, quiet = false): Promise<JobEnd> {
    if (budget.remainingMs <= 0) return Promise.resolve({ kind: 'timeout' })
    return new Promise((resolve, reject) => {
      const begin = (slot: ValidationWorkerSlot) => {
        const started = performance.now()
        void slot.run(job(this.#nextId++, slot), budget.remainingMs).then((end) => {
          budget.remainingMs -= performance.now() - started
          resolve(end)
        })
      }
      const busy = () => quiet ? resolve({ kind: 'died', error: new Error('busy') }) : reject(this.#busy())
      const slot = this.#waiting.length === 0 ? this.#idleSlotFor(keys) : undefined
      if (slot) return begin(slot)
      const maxCharacters = this.#settings.maxWaitingCharacters ?? MAX_WAITING_CHARACTERS
      if (this.#waiting.length >= MAX_WAITING_JOBS || this.#waitingCharacters + characters > maxCharacters) return busy()
      const waiting: Waiting = {
        keys,
        characters,
        begin,
        timer: setTimeout(() => {
          this.#waiting = this.#waiting.filter((entry) => entry !== waiting)
          this.#waitingCharacters -= characters
          busy()
        }, this.#settings.maxMs)
      }
      this.#waiting.push(waiting)
      this.#waitingCharacters += characters
    })
  }

  #dispatch (): void {
    for (let next = this.#waiting[0]; next; next = this.#waiting[0]) {
      const slot = this.#idleSlotFor(next.keys)
      if (!slot) return
      this.#waiting.shift()
      this.#waitingCharacters -= next.characters
      clearTimeout(next.timer)
      next.begin(slot)
    }
  }

  /** An idle worker, one holding the most of these schemas first. */
  #idleSlotFor (keys: readonly string[]): ValidationWorkerSlot | undefined {
    let best: ValidationWorkerSlot | undefined
    let bestHeld = -1
    for (const slot of this.#slots) {
      if (!slot.idle) continue
      const held = keys.filter((key) => slot.held.has(key)).length
      if (held > bestHeld) [best, bestHeld] = [slot, held]
    }
    return best
  }

  #failure (end: Exclude<JobEnd, { kind: 'outcome' }>, what: string, consequence: string): Error {
    const { maxMs, memoryMb } = this.#settings
    switch (end.kind) {
      case 'timeout':
        return limitExceeded('MAX_VALIDATION_MS', maxMs,
          `${what} took longer than the ${maxMs} ms a request may spend validating; ${consequence}`)
      case 'memory':
        return limitExceeded('MAX_VALIDATION_MEMORY_MB', memoryMb,
          `${what} needed more than the ${memoryMb} MiB of memory a validation worker has; ${consequence}`)
      default:
        return end.error
    }
  }

  #busy () {
    return new ServiceBusyError(`Every validation worker stayed busy for ${this.#settings.maxMs} ms; retry later`)
  }
}

function invalidSchema (refusal: SchemaRefusal) {
  return withExtensions(new InvalidSchemaError(refusal.message), refusal.extensions)
}
