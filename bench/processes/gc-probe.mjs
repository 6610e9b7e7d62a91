// Preloaded into the service (node --import) to log its garbage collections without changing it.
// Plain JavaScript so it loads into `node dist/server.js` with no TypeScript loader in the process.
import { appendFile } from 'node:fs'
import { performance, PerformanceObserver } from 'node:perf_hooks'
import process from 'node:process'
import { setInterval } from 'node:timers'

const file = process.env.JSONDOCS_BENCH_GC_LOG
if (file) {
  let pending = []
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pending.push(`${(performance.timeOrigin + entry.startTime).toFixed(1)} ${entry.duration.toFixed(3)} ${entry.detail?.kind ?? 0}\n`)
    }
  }).observe({ entryTypes: ['gc'] })
  // Batched, asynchronous appends keep the probe's own cost out of the request path.
  setInterval(() => {
    if (pending.length === 0) return
    const text = pending.join('')
    pending = []
    appendFile(file, text, () => {})
  }, 200).unref()
}
