import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { createClient } from 'redis'
import { describeMachine, describeVersions } from './lib/environment.js'
import type { CommandSender } from './lib/load.js'
import { measureRow, type RowTarget } from './lib/measure-row.js'
import { parseOptions, selectRows, type RunOptions } from './lib/options.js'
import { gcWithin, readGcLog } from './lib/proc.js'
import { redisPidOf, startCeiling, startFloor, startService, type Measured, type ServiceProcess } from './lib/processes.js'
import { putDocuments } from './lib/put-documents.js'
import { createStoppers } from './lib/stoppers.js'
import type { RowResult, RunResult } from './lib/results.js'
import { BESIDE_CEILING_ROWS, evaluateTargets } from './lib/targets.js'
import { toCsv } from './report/csv.js'
import { toMarkdown } from './report/markdown.js'
import { toSvg } from './report/svg.js'
import { ceiling as ceilingScenario } from './scenarios/ceiling.js'
import { allScenarios } from './scenarios/index.js'
import type { Target } from './scenarios/scenario.js'

const root = fileURLToPath(new URL('..', import.meta.url))
/** The service's KEY_PREFIX, set explicitly: the direct rows address the same Redis keys it does. */
const KEY_PREFIX = 'jsondocs:'

interface Running {
  ceiling?: Measured
  floor?: Measured
  service?: ServiceProcess & { redis: CommandSender, redisPid: number, gcLog: string }
  cached?: ServiceProcess & { redis: CommandSender, redisPid: number, gcLog: string, settings: string }
}

/** What the ceiling rows ask of the no-op server, also measured right after every row judged against it. */
const NOOP_REQUESTS = ceilingScenario([16]).rows[0]!.requests

const stoppers = createStoppers('bench')

function progress (text: string): void {
  process.stderr.write(text + '\n')
}

async function startServiceWithRedis (options: RunOptions, work: string, name: string, cacheMaxEntries: number):
  Promise<ServiceProcess & { redis: CommandSender, redisPid: number, gcLog: string }> {
  const gcLog = join(work, `gc-${name}.log`)
  const service = await startService({
    root, mode: options.mode, dataDir: join(work, name), logLevel: options.logLevel, cacheMaxEntries, keyPrefix: KEY_PREFIX, gcLog,
    env: options.env
  })
  stoppers.add(() => service.stop())
  // Like the service's client, no per-command timeout: node-redis' default (5 s) arms an AbortSignal and a
  // timer per command, and their firing 5 s after a direct phase would load the runner during later rows.
  const redis = createClient({ RESP: 3, commandOptions: { timeout: 0 }, socket: { path: service.socketPath, tls: false } })
  redis.on('error', (error: Error) => progress(`bench: direct client (${name}): ${error.message}`))
  await redis.connect()
  stoppers.add(() => { if (redis.isOpen) redis.destroy() })
  return { ...service, redis, redisPid: await redisPidOf(redis), gcLog }
}

/** Whether any connection to this Redis has key tracking on (CLIENT LIST flag `t`): caching is live. */
async function trackingOn (redis: CommandSender): Promise<boolean> {
  const list = String(await redis.sendCommand(['CLIENT', 'LIST']))
  return list.split('\n').some((line) => /\bflags=\S*t/.test(line))
}

function targetOf (running: Running, target: Target): RowTarget {
  if (target === 'ceiling' && running.ceiling) return { ...running.ceiling, settings: 'no-op fastify' }
  if (target === 'service' && running.service) return { ...running.service, settings: 'cache off' }
  if (target === 'cached' && running.cached) return { ...running.cached }
  if (target === 'floor' && running.floor && running.service) {
    return { ...running.floor, settings: 'floor server', redisPid: running.service.redisPid, redis: running.service.redis }
  }
  throw new Error(`no ${target} process`)
}

function summaryLine (index: number, total: number, row: RowResult): string {
  const side = (rate: number, p99: number) => `${Math.round(rate).toLocaleString('en-US')}/s p99 ${p99.toFixed(2)} ms`
  const direct = row.direct ? ` | direct ${side(row.direct.rate, row.direct.latency.p99)} | ${row.ratio!.toFixed(2)}x` : ''
  const ceiling = row.ceiling ? ` | ceiling after ${side(row.ceiling.rate, row.ceiling.latency.p99)}` : ''
  const noted = row.notes?.length ? `  (${row.notes.join('; ')})` : ''
  const failed = row.failures.length ? `  FAILED: ${row.failures.join('; ')}` : ''
  return `[${String(index).padStart(2)}/${total}] ${row.id.padEnd(34)} c=${row.connections} ${side(row.service.rate, row.service.latency.p99)}${direct}${ceiling}${noted}${failed}`
}

async function run (options: RunOptions): Promise<{ result: RunResult, out: string }> {
  const scenarios = selectRows(allScenarios({ smoke: options.smoke }), options)
  const total = scenarios.reduce((n, scenario) => n + scenario.rows.length, 0)
  if (total === 0) throw new Error('no row matches --only')
  const targets = new Set(scenarios.flatMap((scenario) => scenario.rows.map((row) => row.target)))
  const besideCeiling = scenarios.some((scenario) => scenario.rows.some((row) => BESIDE_CEILING_ROWS.includes(row.id)))
  const startedAt = new Date()
  const machine = describeMachine()

  if (options.mode === 'dist') {
    progress('bench: building dist/ (npm run build)')
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
  }
  const work = mkdtempSync(join(tmpdir(), 'jsondocs-bench-'))
  stoppers.add(() => rmSync(work, { recursive: true, force: true }))

  const running: Running = {}
  if (targets.has('ceiling') || besideCeiling) {
    const ceiling = await startCeiling(root, options.logLevel)
    stoppers.add(() => ceiling.stop())
    running.ceiling = ceiling
  }
  if (targets.has('service') || targets.has('floor') || !targets.has('cached')) running.service = await startServiceWithRedis(options, work, 'service', 0)
  if (targets.has('cached')) {
    const cached = await startServiceWithRedis(options, work, 'cached', options.cacheEntries)
    running.cached = { ...cached, settings: `cache ${options.cacheEntries}` }
  }
  if (targets.has('floor')) {
    const floor = await startFloor(root, options.logLevel, { socketPath: running.service!.socketPath }, KEY_PREFIX)
    stoppers.add(() => floor.stop())
    running.floor = floor
  }
  const anyRedis = (running.service ?? running.cached)!.redis
  const versions = await describeVersions(root, anyRedis)

  for (const scenario of scenarios) {
    // The floor server reads and writes documents the service wrote.
    for (const writer of new Set(scenario.rows.map((row) => row.target === 'floor' ? 'service' : row.target))) {
      if (writer === 'ceiling') continue
      await putDocuments(targetOf(running, writer).url, scenario.documents, options.headers)
      if (scenario.prepare) await scenario.prepare(targetOf(running, writer).url, options.headers)
    }
  }
  if (running.cached) {
    await fetch(`${running.cached.url}/health`)
    const live = await trackingOn(running.cached.redis)
    running.cached.settings = `cache ${options.cacheEntries} (${live ? 'tracking on' : 'tracking off: the service ignores CACHE_MAX_ENTRIES'})`
  }

  progress(`bench: ${total} rows, ${options.warmup} s warm-up + ${options.duration} s per side, c=${options.connections}` +
    `${targets.has('service') && scenarios.some((s) => s.family === 'soak') ? `, soak ${options.soak} s` : ''}`)
  const rows: RowResult[] = []
  for (const scenario of scenarios) {
    for (const row of scenario.rows) {
      if (process.stderr.isTTY) process.stderr.write(`[${String(rows.length + 1).padStart(2)}/${total}] ${row.id} ...\r`)
      const toService = row.target === 'service' || row.target === 'cached'
      const requests = toService ? row.requests.map((request) => ({ ...request, headers: { ...options.headers, ...request.headers } })) : row.requests
      const result = await measureRow({ ...row, requests }, {
        target: targetOf(running, row.target),
        ...(BESIDE_CEILING_ROWS.includes(row.id) ? { adjacentCeiling: { target: targetOf(running, 'ceiling'), requests: NOOP_REQUESTS } } : {}),
        familyTitle: scenario.title,
        keyPrefix: KEY_PREFIX,
        connections: options.connections,
        duration: options.duration,
        warmup: options.warmup,
        soak: options.soak
      })
      rows.push(result)
      progress(summaryLine(rows.length, total, result))
    }
  }

  await sleep(400) // the GC probe flushes every 200 ms
  const gcLogs = { service: running.service && readGcLog(running.service.gcLog), cached: running.cached && readGcLog(running.cached.gcLog) }
  for (const row of rows) {
    const events = row.target === 'service' ? gcLogs.service : row.target === 'cached' ? gcLogs.cached : undefined
    if (events) row.service.gc = gcWithin(events, row.service.from, row.service.to)
  }

  const result: RunResult = {
    format: 'jsondocs-bench/1',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { ...machine, loadAverageAtEnd: os.loadavg().map((x) => Math.round(x * 100) / 100) },
    versions,
    settings: {
      mode: options.smoke ? 'smoke' : 'full',
      service: options.mode === 'dist' ? 'node dist/server.js' : 'node --import tsx src/server.ts',
      redis: "the service's own redis-server (no REDIS_URL) on a unix socket, AOF everysec; direct rows use the same socket",
      ceiling: 'node bench/processes/noop-server.mjs (fastify, GET /noop)',
      floor: "node bench/processes/floor-server.mjs (fastify + node-redis on the service's Redis, the least a versioned gateway does)",
      LOG_LEVEL: options.logLevel,
      CACHE_MAX_ENTRIES: { service: 0, ...(running.cached ? { cached: running.cached.settings } : {}) },
      connections: options.connections,
      warmupSeconds: options.warmup,
      durationSeconds: options.duration,
      soakSeconds: options.soak,
      only: options.only?.source ?? null,
      // Names only: a value may be a secret (AUTH_ADMIN_TOKEN).
      env: Object.keys(options.env),
      loadGenerator: 'autocannon in a process of its own per row, one request in flight per connection',
      direct: 'node-redis (RESP3) in the runner process, one client, as many commands in flight as connections'
    },
    rows,
    targets: evaluateTargets(rows)
  }
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-')
  const out = options.out ?? (options.smoke ? mkdtempSync(join(tmpdir(), 'jsondocs-bench-smoke-')) : join(root, 'bench/results', stamp))
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, 'results.json'), JSON.stringify(result, null, 2) + '\n')
  writeFileSync(join(out, 'results.csv'), toCsv(rows))
  writeFileSync(join(out, 'results.md'), toMarkdown(result))
  writeFileSync(join(out, 'chart.svg'), toSvg(rows))
  return { result, out }
}

async function main (): Promise<void> {
  let options: RunOptions
  try {
    options = parseOptions(process.argv.slice(2))
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`)
    process.exitCode = 2
    return
  }
  stoppers.stopOnSignals()
  try {
    const { result, out } = await run(options)
    await stoppers.stopAll()
    const failed = result.rows.filter((row) => row.failures.length > 0)
    const judged = result.targets.filter((target) => target.status !== 'not measured')
    progress(`bench: targets ${judged.filter((t) => t.status === 'pass').length}/${judged.length} met` +
      ` (${result.targets.length - judged.length} not measured); results in ${out}`)
    if (failed.length) {
      progress(`bench: FAILED: ${failed.length} row(s) had errors: ${failed.map((row) => row.id).join(', ')}`)
      process.exitCode = 1
    }
  } catch (error) {
    console.error(`bench: ${(error as Error).stack ?? String(error)}`)
    await stoppers.stopAll()
    process.exitCode = 1
  }
}

await main()
