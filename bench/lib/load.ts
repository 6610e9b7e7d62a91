import autocannon from 'autocannon'
import hdr from 'hdr-histogram-js'
import { performance } from 'node:perf_hooks'
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
function newHistogram () {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 })
}

function summarize (histogram: ReturnType<typeof newHistogram>): Latency {
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

/** HTTP load with autocannon: `connections` keep-alive connections, one request in flight on each. */
export async function httpLoad (baseUrl: string, requests: HttpRequestSpec[], options: LoadOptions): Promise<Measurement> {
  const histogram = newHistogram()
  const non2xx: Record<string, number> = {}
  let count = 0
  const started = performance.now()
  let finish: (error: unknown, result: autocannon.Result) => void = () => {}
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = (error, result) => { if (error) reject(error as Error); else resolve(result) }
  })
  const instance = autocannon({
    url: baseUrl,
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
    maxOverallRequests: options.maxRequests,
    // autocannon stops at the first sampling tick after the duration: keep the overrun short.
    sampleInt: Math.min(100, Math.max(10, options.seconds * 250)),
    timeout: 10,
    requests: requests.map((request) => ({ ...request }))
  }, (error, result) => finish(error, result))
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    count++
    histogram.recordValue(Math.max(1, Math.round(responseTime * 1000)))
    if (statusCode < 200 || statusCode > 299) non2xx[statusCode] = (non2xx[statusCode] ?? 0) + 1
  })
  const result = await done
  const seconds = (performance.now() - started) / 1000
  const measurement = {
    requests: count,
    seconds,
    rate: count / seconds,
    latency: summarize(histogram),
    errors: result.errors,
    non2xx
  }
  histogram.destroy()
  return measurement
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
