import type { FastifyBaseLogger } from 'fastify'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { JobOutcome, ValidationJob, WorkerMessage } from './validation-protocol.js'

/** How a job ended: with the worker's outcome, past its deadline, or with its worker's death. */
export type JobEnd =
  | { kind: 'outcome', outcome: JobOutcome }
  | { kind: 'timeout' }
  | { kind: 'memory' }
  | { kind: 'died', error: Error }

export interface SlotOptions {
  /** Heap (old generation) a worker may use, in MiB: past it the worker dies and the job with it. */
  memoryMb: number
  log: FastifyBaseLogger
  /** Called when the slot can take a job: its worker is ready and idle. */
  onIdle (): void
}

/** A worker that dies before it is ready is started again after this pause, not in a loop. */
const RESTART_PAUSE_MS = 1000

/*
 * The worker runs from the compiled dist/ (plain Node) or from the sources (tsx, for tests and
 * `npm run dev`): a TypeScript worker needs tsx's loader, which a process started by tsx passes on by
 * itself and one started by vitest does not.
 */
const fromSources = import.meta.url.endsWith('.ts')
const workerUrl = new URL(`./validation-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url)

function workerExecArgv (): string[] | undefined {
  if (!fromSources || process.execArgv.some((arg) => arg.includes('tsx'))) return undefined
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return [...process.execArgv, '--import', loader]
}

interface Running {
  id: number
  settle (end: JobEnd): void
  timer: NodeJS.Timeout
}

/**
 * One validation worker, replaced whenever it ends: terminated when a job outlives its deadline, or dead
 * of any cause (out of memory, a crash). A job is never left waiting on a worker that is gone.
 */
export class ValidationWorkerSlot {
  /** Keys of the compiled schemas the worker holds, as it reported them. */
  readonly held = new Set<string>()
  readonly #options: SlotOptions
  #worker: Worker | undefined
  #ready = false
  #running: Running | undefined
  #closed = false
  #firstReady: { resolve (): void, reject (error: Error): void } | undefined

  constructor (options: SlotOptions) {
    this.#options = options
  }

  /** Starts the worker; resolves once it is ready, rejects when it cannot start. */
  start (): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#firstReady = { resolve, reject }
      this.#spawn()
    })
  }

  /** Whether a job is running on the worker. */
  get busy (): boolean {
    return this.#running !== undefined
  }

  get idle (): boolean {
    return this.#ready && !this.#running && !this.#closed
  }

  /** Runs a job; it ends past deadlineMs, its worker terminated and replaced. */
  run (job: ValidationJob, deadlineMs: number): Promise<JobEnd> {
    const worker = this.#worker
    if (!this.idle || !worker) throw new Error('the validation worker is not idle')
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#settle({ kind: 'timeout' })
        this.#replace(worker)
      }, Math.max(1, deadlineMs))
      this.#running = { id: job.id, timer, settle: resolve }
      worker.postMessage(job)
    })
  }

  async close (): Promise<void> {
    this.#closed = true
    this.#settle({ kind: 'died', error: new Error('the service is closing') })
    await this.#worker?.terminate()
  }

  #spawn (): void {
    const execArgv = workerExecArgv()
    const worker = new Worker(workerUrl, {
      name: 'jsondocs-validation',
      resourceLimits: { maxOldGenerationSizeMb: this.#options.memoryMb },
      ...(execArgv ? { execArgv } : {})
    })
    // A worker never keeps the process alive: the service's own handles decide when it ends.
    worker.unref()
    this.#worker = worker
    this.#ready = false
    this.held.clear()
    worker.on('message', (message: WorkerMessage) => { if (this.#worker === worker) this.#receive(message) })
    worker.on('error', (error: Error & { code?: string }) => {
      if (this.#worker !== worker) return
      if (!this.#ready) this.#firstReady?.reject(error)
      this.#settle(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { kind: 'memory' } : { kind: 'died', error })
      this.#options.log.error({ err: error }, 'a validation worker failed; it is replaced')
    })
    worker.on('exit', () => {
      if (this.#worker !== worker || this.#closed) return
      this.#settle({ kind: 'died', error: new Error('the validation worker exited') })
      const pause = this.#ready ? 0 : RESTART_PAUSE_MS
      this.#worker = undefined
      this.#ready = false
      setTimeout(() => { if (!this.#closed) this.#spawn() }, pause).unref()
    })
  }

  #receive (message: WorkerMessage): void {
    if (message.kind === 'ready') {
      this.#ready = true
      this.#firstReady?.resolve()
      this.#firstReady = undefined
      this.#options.onIdle()
      return
    }
    if (message.id !== this.#running?.id) return
    for (const key of message.kept) this.held.add(key)
    for (const key of message.dropped) this.held.delete(key)
    this.#settle({ kind: 'outcome', outcome: message.outcome })
    this.#options.onIdle()
  }

  #settle (end: JobEnd): void {
    const running = this.#running
    if (!running) return
    this.#running = undefined
    clearTimeout(running.timer)
    running.settle(end)
  }

  /** Ends a worker that outlived a deadline and starts its replacement at once. */
  #replace (worker: Worker): void {
    if (this.#worker !== worker) return
    this.#worker = undefined
    this.#ready = false
    void worker.terminate()
    if (!this.#closed) this.#spawn()
  }
}
