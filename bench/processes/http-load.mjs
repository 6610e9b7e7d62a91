// The HTTP load generator: autocannon in a process of its own, one per row, so that no row's load runs
// in a process that earlier rows have shaped (megabyte responses leave a generator measurably slower).
// Plain JavaScript so it runs on bare node. Each IPC message is one bounded phase; the answer carries
// the latencies as an encoded HDR histogram for the runner to summarize.
import autocannon from 'autocannon'
import hdr from 'hdr-histogram-js'
import { performance } from 'node:perf_hooks'
import process from 'node:process'

/** One closed-loop phase: `connections` keep-alive connections, one request in flight on each. */
async function runPhase ({ baseUrl, requests, options, histogram: build }) {
  const histogram = hdr.build(build)
  const non2xx = {}
  let count = 0
  const started = performance.now()
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon({
      url: baseUrl,
      connections: options.connections,
      pipelining: 1,
      duration: options.seconds,
      maxOverallRequests: options.maxRequests,
      // autocannon stops at the first sampling tick after the duration: keep the overrun short.
      sampleInt: Math.min(100, Math.max(10, options.seconds * 250)),
      timeout: 10,
      requests
    }, (error, done) => { if (error) reject(error); else resolve(done) })
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      count++
      histogram.recordValue(Math.max(1, Math.round(responseTime * 1000)))
      if (statusCode < 200 || statusCode > 299) non2xx[statusCode] = (non2xx[statusCode] ?? 0) + 1
    })
  })
  const answer = {
    requests: count,
    seconds: (performance.now() - started) / 1000,
    errors: result.errors,
    non2xx,
    histogram: hdr.encodeIntoCompressedBase64(histogram)
  }
  histogram.destroy()
  return answer
}

process.on('message', (phase) => {
  runPhase(phase).then(
    (answer) => process.send({ answer }),
    (error) => process.send({ error: String(error?.message ?? error) })
  )
})
process.on('disconnect', () => process.exit(0))
