import cluster, { type Worker } from 'node:cluster'
import { answerScrapes } from './metrics/workers-metrics.js'

/*
 * WORKERS=N: N service processes on one port, through node's cluster module. The primary starts the
 * embedded Redis (when there is one), forks the workers, starts another when one dies, and renders the
 * metrics of all of them for whichever worker is scraped (metrics/workers-metrics.ts). The workers share
 * nothing but Redis.
 */

/** What the primary passes a worker: the embedded Redis' socket, when it started one. */
export const WORKER_REDIS_SOCKET = 'JSONDOCS_WORKER_REDIS_SOCKET'

const RESTART_DELAY_MS = 1000

export interface Workers {
  /** Where the workers listen, as the first of them reported it. */
  url: string
  /** Stops every worker (each closes gracefully) and resolves when all have exited. */
  close (): Promise<void>
}

/**
 * Forks `count` workers with `env` added to their environment; resolves once every one listens. A worker
 * that dies while the service runs is started again after a second; one that dies before every worker
 * listens fails the start.
 */
export async function startWorkers (count: number, env: Record<string, string>, log: (message: string) => void): Promise<Workers> {
  let stopping = false
  const fork = (): Worker => {
    const worker = cluster.fork(env)
    answerScrapes(worker)
    return worker
  }
  const started = Array.from({ length: count }, fork)
  const url = await new Promise<string>((resolve, reject) => {
    let listening = 0
    let first: string | undefined
    const onListening = (_worker: Worker, address: { address: string, port: number }) => {
      first ??= `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`
      if (++listening === count) done(() => resolve(first!))
    }
    const onExit = (worker: Worker, code: number | null, signal: string | null) => {
      if (started.includes(worker)) done(() => reject(new Error(`a worker exited while starting (${signal ?? code})`)))
    }
    const done = (settle: () => void) => {
      cluster.off('listening', onListening)
      cluster.off('exit', onExit)
      settle()
    }
    cluster.on('listening', onListening)
    cluster.on('exit', onExit)
  }).catch(async (error: unknown) => {
    await stopAll()
    throw error
  })
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return
    log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`)
    setTimeout(() => { if (!stopping) fork() }, RESTART_DELAY_MS).unref()
  })
  return {
    url,
    async close () {
      stopping = true
      await stopAll()
    }
  }
}

/** SIGTERM to every worker, and resolves when all have exited. */
async function stopAll (): Promise<void> {
  await Promise.all(Object.values(cluster.workers ?? {}).map(async (worker) => {
    if (worker === undefined || worker.isDead()) return
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    worker.process.kill('SIGTERM')
    await exited
  }))
}
