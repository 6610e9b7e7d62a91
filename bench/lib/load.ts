import hdr from 'hdr-histogram-js'
import { fork, type ChildProcess } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { HttpRequestSpec } from '../scenarios/scenario.js'

/** Latency percentiles in milliseconds: the columns of RedisJSON's published table. */
export interface Latency {
  mean: number
  p50: number
  p90: number
  p95: number
  p99: number
  p99_5: number
  max: number
}

/** What one bounded closed-loop load phase measured. */
export interface Measurement {
  requests: number
  seconds: number
  /** Requests per second. */
  rate: number
  latency: Latency
  /** Transport errors and timeouts (HTTP), or rejected commands (Redis). */
  errors: number
  /** Answers outside 2xx, by status. */
  non2xx: Record<string, number>
}

export interface LoadOptions {
  connections: number
  seconds: number
  /** A hard cap on requests, so a phase is bounded in count as well as in time. */
  maxRequests: number
}

/** Latencies are recorded in microseconds, for both kinds of load, in the histogram autocannon uses. */
const HISTOGRAM = { lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 } as const

function newHistogram () {
  return hdr.build(HISTOGRAM)
}

function summarize (histogram: Pick<ReturnType<typeof newHistogram>, 'totalCount' | 'mean' | 'maxValue' | 'getValueAtPercentile'>): Latency {
  const ms = (us: number) => Math.round(us) / 1000
  if (histogram.totalCount === 0) return { mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, p99_5: 0, max: 0 }
  return {
    mean: ms(histogram.mean),
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p95: ms(histogram.getValueAtPercentile(95)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p99_5: ms(histogram.getValueAtPercentile(99.5)),
    max: ms(histogram.maxValue)
  }
}

/**
 * HTTP load from a process of its own (bench/processes/http-load.mjs, autocannon): start one per row,
 * run its warm-up and measurement there, then stop it. Latencies come back as an HDR histogram.
 */
export class HttpLoadProcess {
  readonly #child: ChildProcess

  private constructor (child: ChildProcess) {
    this.#child = child
  }

  static start (): HttpLoadProcess {
    const script = fileURLToPath(new URL('../processes/http-load.mjs', import.meta.url))
    return new HttpLoadProcess(fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }))
  }

  /** One bounded closed-loop phase: `connections` keep-alive connections, one request in flight on each. */
  run (baseUrl: string, requests: HttpRequestSpec[], options: LoadOptions): Promise<Measurement> {
    return new Promise((resolve, reject) => {
      const child = this.#child
      const onExit = (code: number | null) => reject(new Error(`the load generator exited (${code ?? 'signal'})`))
      child.once('exit', onExit)
      child.once('message', (message: PhaseMessage) => {
        child.off('exit', onExit)
        if (message.answer === undefined) return reject(new Error(`the load generator failed: ${message.error}`))
        const { histogram: encoded, ...counts } = message.answer
        const histogram = hdr.decodeFromCompressedBase64(encoded)
        resolve({ ...counts, rate: counts.requests / counts.seconds, latency: summarize(histogram) })
        histogram.destroy()
      })
      child.send({ baseUrl, requests, options, histogram: HISTOGRAM })
    })
  }

  stop (): void {
    if (this.#child.connected) this.#child.disconnect()
  }
}

interface PhaseMessage {
  answer?: Omit<Measurement, 'rate' | 'latency'> & { histogram: string }
  error?: string
}

/** The minimal client surface the direct loop needs (a connected node-redis client). */
export interface CommandSender {
  sendCommand (args: string[]): Promise<unknown>
}

/**
 * The same closed loop straight to Redis: `connections` workers sharing one node-redis client (as the
 * service shares one), each sending its next command when the previous one is answered.
 */
export async function directLoad (client: CommandSender, args: string[], options: LoadOptions): Promise<Measurement> {
  const histogram = newHistogram()
  let count = 0
  let errors = 0
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  const worker = async () => {
    while (performance.now() < deadline && count + errors < options.maxRequests) {
      const sent = performance.now()
      try {
        await client.sendCommand(args)
        histogram.recordValue(Math.max(1, Math.round((performance.now() - sent) * 1000)))
        count++
      } catch {
        errors++
      }
    }
  }
  await Promise.all(Array.from({ length: options.connections }, worker))
  const seconds = (performance.now() - started) / 1000
  const measurement = { requests: count, seconds, rate: count / seconds, latency: summarize(histogram), errors, non2xx: {} }
  histogram.destroy()
  return measurement
}
