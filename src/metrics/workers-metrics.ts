import type { Worker } from 'node:cluster'
import { AggregatorRegistry, Registry } from 'prom-client'
import type { Scrape } from './routes.js'

/*
 * The metrics of WORKERS service processes, as one: a scraped worker asks the primary, which sums every
 * worker's registry (prom-client's cluster aggregator) and answers it.
 */

const METRICS_REQUEST = 'jsondocs:metrics'

interface MetricsMessage {
  type: typeof METRICS_REQUEST
  id: number
  text?: string
  error?: string
}

function isMetricsMessage (message: unknown): message is MetricsMessage {
  return typeof message === 'object' && message !== null && (message as MetricsMessage).type === METRICS_REQUEST
}

let aggregator: AggregatorRegistry<typeof Registry.PROMETHEUS_CONTENT_TYPE> | undefined

/** In the primary: answers the worker's requests for the metrics of every worker. */
export function answerScrapes (worker: Worker): void {
  aggregator ??= new AggregatorRegistry()
  const registry = aggregator
  worker.on('message', (message: unknown) => {
    if (!isMetricsMessage(message)) return
    registry.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_REQUEST, id: message.id, text }),
      (error: Error) => worker.send({ type: METRICS_REQUEST, id: message.id, error: error.message }))
  })
}

/** In a worker: lets the primary read `registry` when it sums the workers' metrics. */
export function offerMetrics (registry: Registry): void {
  AggregatorRegistry.setRegistries([registry])
  // Its constructor is what makes a worker answer the primary's requests.
  void new AggregatorRegistry()
}

let nextRequest = 0
const waiting = new Map<number, { resolve: (text: string) => void, reject: (error: Error) => void }>()

/** In a worker: the metrics of every worker, summed by the primary. */
export async function clusterScrape (): Promise<Scrape> {
  if (waiting.size === 0) process.on('message', onMetricsAnswer)
  const id = ++nextRequest
  const text = await new Promise<string>((resolve, reject) => {
    waiting.set(id, { resolve, reject })
    process.send!({ type: METRICS_REQUEST, id })
  })
  return { contentType: Registry.PROMETHEUS_CONTENT_TYPE, text }
}

function onMetricsAnswer (message: unknown): void {
  if (!isMetricsMessage(message)) return
  const request = waiting.get(message.id)
  if (request === undefined) return
  waiting.delete(message.id)
  if (waiting.size === 0) process.off('message', onMetricsAnswer)
  if (message.text !== undefined) request.resolve(message.text)
  else request.reject(new Error(message.error ?? 'the primary rendered no metrics'))
}
