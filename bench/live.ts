/**
 * Live changes: what recording an event adds to a write in Redis (the same closed loop of member PUTs on
 * a service with EVENTS_MAXLEN=0, on one with the documents' events streams alone (EVENTS_FEED_MAXLEN=0) and
 * on one with the default feed, the namespace's feed too: the FCALL time Redis reports, and its CPU per write), the memory 1,000 idle streams hold, and the time from a write's answer to its event at
 * 1,000 subscribers of one document while writes arrive at a paced rate spread over 100 documents. The
 * services run as `npm start` runs them, each with its own Redis; every phase is bounded in time and count.
 *
 *   npx tsx bench/live.ts [--seconds 5] [--streams 1000] [--rate 1000] [--skip-build] [--writes-only] [--out results.json]
 */
import { execFileSync, fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createClient } from 'redis'
import { HttpLoadProcess } from './lib/load.js'
import { cpuMicros, rssMegabytes } from './lib/proc.js'
import { redisPidOf, startService, type ServiceProcess } from './lib/processes.js'
import { createStoppers } from './lib/stoppers.js'

type Stoppers = ReturnType<typeof createStoppers>

const json = { 'content-type': 'application/json', prefer: 'return=minimal' }

interface Options { root: string, mode: 'dist' | 'tsx', seconds: number, streams: number, rate: number }

async function service (options: Options, stoppers: Stoppers, env: Record<string, string>): Promise<ServiceProcess> {
  const work = mkdtempSync(join(tmpdir(), 'jsondocs-live-'))
  stoppers.add(() => rmSync(work, { recursive: true, force: true }))
  const started = await startService({
    root: options.root, mode: options.mode, dataDir: join(work, 'data'), logLevel: 'warn', cacheMaxEntries: 0, keyPrefix: 'jsondocs:',
    gcLog: join(work, 'gc.log'), env
  })
  stoppers.add(() => started.stop())
  return started
}

/** A member PUT in a closed loop: rate, FCALL µs per call as Redis counts it, Redis CPU per write. */
async function writeCost (options: Options, stoppers: Stoppers, env: Record<string, string>) {
  const started = await service(options, stoppers, env)
  const redis = await createClient({ socket: { path: started.socketPath, reconnectStrategy: false } }).connect()
  stoppers.add(() => redis.close())
  await fetch(started.url + '/docs/bench:1', { method: 'PUT', body: JSON.stringify({ n: 0, name: 'ada', tags: ['a'] }), headers: json })
  const load = HttpLoadProcess.start()
  stoppers.add(() => load.stop())
  const request = { method: 'PUT' as const, path: '/docs/bench:1/n', body: '7', headers: json }
  await load.run(started.url, [request], { connections: 16, seconds: 1, maxRequests: 50_000 })
  await redis.sendCommand(['CONFIG', 'RESETSTAT'])
  const redisPid = await redisPidOf(redis)
  const before = cpuMicros(redisPid)
  const measured = await load.run(started.url, [request], { connections: 16, seconds: options.seconds, maxRequests: 300_000 })
  const stats = String(await redis.sendCommand(['INFO', 'commandstats']))
  const fcall = /cmdstat_fcall:calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/.exec(stats)
  return {
    rate: Math.round(measured.rate),
    p99Ms: measured.latency.p99,
    fcallUs: fcall ? Number(fcall[3]) : NaN,
    redisCpuUsPerWrite: Number(((cpuMicros(redisPid) - before) / measured.requests).toFixed(1))
  }
}

/** The subscribers' process (bench/processes/sse-subscribers.mjs): one IPC request, its one answer. */
function subscribers (stoppers: Stoppers) {
  const child = fork(fileURLToPath(new URL('processes/sse-subscribers.mjs', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  stoppers.add(() => { if (child.connected) child.send({ stop: true }); child.kill() })
  const ask = <T>(message: object) => new Promise<T>((resolve, reject) => {
    child.once('message', (answer) => resolve(answer as T))
    child.once('exit', () => reject(new Error('the subscribers\' process ended')))
    child.send(message)
  })
  return {
    open: (url: string, streams: number) => ask<{ opened: number }>({ open: { url, streams } }),
    arrivals: async () => new Map(Object.entries((await ask<{ arrivals: Record<string, number[]> }>({ report: true })).arrivals))
  }
}

/** Now, in ms since the epoch, as the subscribers' process reads it too. */
function now (): number {
  return performance.timeOrigin + performance.now()
}

function percentile (sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p / 100))]!
}

async function streams (options: Options, stoppers: Stoppers) {
  const started = await service(options, stoppers, { MAX_STREAMS: String(options.streams + 10) })
  const documents = 100
  for (let index = 0; index < documents; index++) {
    await fetch(`${started.url}/docs/live:${index}`, { method: 'PUT', body: JSON.stringify({ n: 0 }), headers: json })
  }
  const rssBefore = rssMegabytes(started.pid)
  // Every subscriber on document 0, in a process of their own; arrival times by ETag.
  const held = subscribers(stoppers)
  const { opened } = await held.open(`${started.url}/docs/live:0`, options.streams)
  if (opened < options.streams) throw new Error(`only ${opened} of ${options.streams} streams opened`)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const rssIdle = rssMegabytes(started.pid)

  // Paced writes: every 10 ms, rate/100 of them, spread over the documents (document 0 among them).
  const answered = new Map<string, number>()
  const perTick = Math.max(1, Math.round(options.rate / 100))
  let sent = 0
  let failed = 0
  const writes: Array<Promise<void>> = []
  const stopAt = Date.now() + options.seconds * 1000
  while (Date.now() < stopAt && sent < options.rate * options.seconds) {
    for (let index = 0; index < perTick; index++, sent++) {
      const document = sent % documents
      writes.push(fetch(`${started.url}/docs/live:${document}/n`, { method: 'PUT', body: String(sent), headers: json }).then((response) => {
        if (!response.ok) failed++
        if (document === 0) answered.set(response.headers.get('etag')!.slice(1, -1), now())
      }, () => { failed++ }))
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await Promise.all(writes)
  await new Promise((resolve) => setTimeout(resolve, 2000))
  const arrivals = await held.arrivals()
  const latencies: number[] = []
  let missing = 0
  for (const [etag, at] of answered) {
    const times = arrivals.get(etag) ?? []
    missing += options.streams - times.length
    for (const time of times) latencies.push(Math.max(0, time - at))
  }
  latencies.sort((a, b) => a - b)
  return {
    streams: options.streams,
    idleRssMb: Number((rssIdle - rssBefore).toFixed(1)),
    idleKbPerStream: Number(((rssIdle - rssBefore) * 1024 / options.streams).toFixed(1)),
    writes: sent,
    writeRate: Math.round(sent / options.seconds),
    failedWrites: failed,
    eventsMeasured: latencies.length,
    eventsMissing: missing,
    p50Ms: Number(percentile(latencies, 50).toFixed(2)),
    p99Ms: Number(percentile(latencies, 99).toFixed(2)),
    maxMs: Number((latencies.at(-1) ?? NaN).toFixed(2))
  }
}

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      streams: { type: 'string', default: '1000' },
      rate: { type: 'string', default: '1000' },
      'skip-build': { type: 'boolean', default: false },
      'writes-only': { type: 'boolean', default: false },
      out: { type: 'string' }
    }
  })
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
  const options: Options = {
    root, mode: values['skip-build'] ? 'tsx' : 'dist', seconds: Math.min(60, Number(values.seconds)),
    streams: Math.min(5000, Number(values.streams)), rate: Math.min(5000, Number(values.rate))
  }
  if (options.mode === 'dist') execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
  const stoppers = createStoppers('live')
  stoppers.stopOnSignals()
  try {
    const off = await writeCost(options, stoppers, { EVENTS_MAXLEN: '0' })
    const documentsOnly = await writeCost(options, stoppers, { EVENTS_FEED_MAXLEN: '0' })
    const on = await writeCost(options, stoppers, {})
    const written = [
      '| row | value |', '| --- | --- |',
      `| member PUT, no feed: FCALL / Redis CPU per write / rate | ${off.fcallUs} µs / ${off.redisCpuUsPerWrite} µs / ${off.rate} req/s |`,
      `| member PUT, events streams alone: FCALL / Redis CPU per write / rate | ${documentsOnly.fcallUs} µs / ${documentsOnly.redisCpuUsPerWrite} µs / ${documentsOnly.rate} req/s |`,
      `| member PUT, feed on: FCALL / Redis CPU per write / rate | ${on.fcallUs} µs / ${on.redisCpuUsPerWrite} µs / ${on.rate} req/s |`
    ]
    if (values['writes-only']) {
      console.log(written.join('\n'))
      if (values.out !== undefined) writeFileSync(values.out, JSON.stringify({ mode: options.mode, writeWithoutFeed: off, writeWithEventsStreams: documentsOnly, writeWithFeed: on }, null, 2))
      return
    }
    const fanOut = await streams(options, stoppers)
    const results = { mode: options.mode, writeWithoutFeed: off, writeWithEventsStreams: documentsOnly, writeWithFeed: on, fanOut }
    console.log([
      ...written,
      `| ${fanOut.streams} idle streams: service RSS added | ${fanOut.idleRssMb} MB (${fanOut.idleKbPerStream} KiB per stream) |`,
      `| write answer -> event, ${fanOut.streams} subscribers, ${fanOut.writeRate} writes/s over 100 docs | p50 ${fanOut.p50Ms} ms, p99 ${fanOut.p99Ms} ms, max ${fanOut.maxMs} ms (${fanOut.eventsMeasured} events, ${fanOut.eventsMissing} missing, ${fanOut.failedWrites} failed writes) |`
    ].join('\n'))
    if (values.out !== undefined) writeFileSync(values.out, JSON.stringify(results, null, 2))
  } finally {
    await stoppers.stopAll()
  }
}

await main()
