/**
 * What a validated write costs: a small document written whole, and one member of it (a preview, then
 * the write), in a collection with a schema, beside the same writes outside any collection. The service
 * runs as `npm start` runs it (dist/, built first) with its own Redis; each row is a closed loop of
 * --connections for --seconds (autocannon, in a process of its own), bounded in count too. It reports
 * rate, latency, the CPU the service and its Redis spent per request, and the service's RSS (its
 * validation workers included). `--root` measures another source tree (an earlier version).
 *
 *   npx tsx bench/validation.ts [--seconds 5] [--connections 16] [--root <dir>] [--skip-build]
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createClient } from 'redis'
import { HttpLoadProcess } from './lib/load.js'
import { cpuMicros, rssMegabytes } from './lib/proc.js'
import { redisPidOf, startService } from './lib/processes.js'
import { createStoppers } from './lib/stoppers.js'
import type { HttpRequestSpec } from './scenarios/scenario.js'

const schema = {
  type: 'object',
  properties: {
    owner: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    balance: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 10 }
  },
  required: ['owner', 'balance']
}
const document = JSON.stringify({ owner: 'ada', email: 'ada@example.com', balance: 10, tags: ['a', 'b'] })

const json = { 'content-type': 'application/json', prefer: 'return=minimal' }
const rows: Array<{ title: string, request: HttpRequestSpec }> = [
  { title: 'PUT whole, no schema', request: { method: 'PUT', path: '/docs/free:1', body: document, headers: json } },
  { title: 'PUT whole, validated', request: { method: 'PUT', path: '/docs/accounts:1', body: document, headers: json } },
  { title: 'PUT member, no schema', request: { method: 'PUT', path: '/docs/free:1/balance', body: '11', headers: json } },
  { title: 'PUT member, validated (preview)', request: { method: 'PUT', path: '/docs/accounts:1/balance', body: '11', headers: json } }
]

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
      root: { type: 'string' },
      'skip-build': { type: 'boolean', default: false }
    }
  })
  const here = fileURLToPath(new URL('..', import.meta.url))
  const root = resolve(values.root ?? here)
  const mode = values['skip-build'] ? 'tsx' : 'dist'
  if (mode === 'dist') execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
  const seconds = Number(values.seconds)
  const connections = Number(values.connections)
  const stoppers = createStoppers('validation')
  stoppers.stopOnSignals()
  const work = mkdtempSync(join(tmpdir(), 'jsondocs-validation-'))
  stoppers.add(() => rmSync(work, { recursive: true, force: true }))
  try {
    const service = await startService({
      root, mode, dataDir: join(work, 'data'), logLevel: 'warn', cacheMaxEntries: 0, keyPrefix: 'jsondocs:', gcLog: join(work, 'gc.log')
    })
    stoppers.add(() => service.stop())
    const redis = await createClient({ socket: { path: service.socketPath, reconnectStrategy: false } }).connect()
    stoppers.add(() => redis.close())
    const redisPid = await redisPidOf(redis)
    const put = (path: string, body: string) => fetch(service.url + path, { method: 'PUT', body, headers: json })
    if (!(await put('/schemas/accounts', JSON.stringify(schema))).ok) throw new Error('registering the schema failed')
    for (const path of ['/docs/free:1', '/docs/accounts:1']) if (!(await put(path, document)).ok) throw new Error(`PUT ${path} failed`)
    const idleRss = rssMegabytes(service.pid)

    const load = HttpLoadProcess.start()
    stoppers.add(() => load.stop())
    const lines = ['| row | req/s | p50 | p99 | service CPU/req | Redis CPU/req |', '| --- | --- | --- | --- | --- | --- |']
    for (const { title, request } of rows) {
      await load.run(service.url, [request], { connections, seconds: Math.min(2, seconds), maxRequests: 200_000 })
      const [serviceBefore, redisBefore] = [cpuMicros(service.pid), cpuMicros(redisPid)]
      const measured = await load.run(service.url, [request], { connections, seconds, maxRequests: 500_000 })
      const perRequest = (before: number, pid: number) => `${((cpuMicros(pid) - before) / measured.requests).toFixed(1)} µs`
      if (measured.errors > 0 || Object.keys(measured.non2xx).length > 0) {
        throw new Error(`${title}: ${measured.errors} errors, ${JSON.stringify(measured.non2xx)}`)
      }
      lines.push(`| ${title} | ${(measured.rate / 1000).toFixed(1)}k | ${measured.latency.p50} ms | ${measured.latency.p99} ms | ` +
        `${perRequest(serviceBefore, service.pid)} | ${perRequest(redisBefore, redisPid)} |`)
    }
    console.log(lines.join('\n'))
    console.log(`\nservice RSS: ${idleRss.toFixed(0)} MB after start, ${rssMegabytes(service.pid).toFixed(0)} MB after the rows (c=${connections}, ${seconds} s each)`)
    await workerStart(root)
  } finally {
    await stoppers.stopAll()
  }
}

/** How long a validation worker takes to start and what it adds to RSS, in this process (when the tree has them). */
async function workerStart (root: string): Promise<void> {
  const module = join(root, 'dist/collections/validation-pool.js')
  if (!existsSync(module)) return
  const { ValidationPool } = await import(module) as typeof import('../src/collections/validation-pool.js')
  const quiet = { error () {}, warn () {}, info () {}, debug () {} } as never
  const starts: number[] = []
  const rssBefore = process.memoryUsage().rss
  let rssWith = 0
  for (let round = 0; round < 5; round++) {
    const pool = new ValidationPool({ maxMs: 1000, workers: 1, memoryMb: 256 }, quiet)
    const started = performance.now()
    await pool.start()
    starts.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, 200))
    rssWith = Math.max(rssWith, process.memoryUsage().rss)
    await pool.close()
  }
  console.log(`validation worker: starts in ${starts.map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
    `adds ${((rssWith - rssBefore) / 1048576).toFixed(0)} MB of RSS while idle`)
}

await main()
