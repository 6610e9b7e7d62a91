/**
 * What the metrics cost per request: the service with metrics off (access enforced without an admin
 * token, no METRICS_PORT) and on (AUTH_ADMIN_TOKEN set, the metrics scraped once a second, more often than Prometheus would),
 * on the same requests, measured at the same time: each variant has its own service, Redis and load
 * generator, and both run each row together, so that whatever else loads the machine falls on both
 * alike (run one after the other on the shared 2-core machine, their difference drowned in its drift).
 * The requests go through fastify's lifecycle, where the metrics observe them: a read with an
 * If-None-Match that matches nothing is answered by the route, from Redis (cache off) or from the
 * answer cache (cache on); a plain GET is measured beside them. Each row is a closed loop of --connections for --seconds (autocannon, in a process of
 * its own), bounded in count too, repeated --rounds times; the service runs as `npm start` runs it
 * (dist/, built first).
 *
 * The work each layer adds is also timed alone first, in this process, in tight loops on real objects
 * (a fastify request and reply, a node-redis client on a Redis of its own): the request hook, the
 * request id, and a Redis call observed through node-redis' tracing channel beside the same call
 * unobserved.
 *
 * With --layer, the "on" variant adds another cross-cutting layer instead of the metrics (which are then
 * off in both): `access` (a JWT on every request, verified once and remembered), `cors` (CORS_ORIGINS, an
 * Origin on every request) or `rate-limit` (RATE_LIMIT high enough never to refuse, counted per address).
 *
 *   npx tsx bench/observability.ts [--layer metrics|access|cors|rate-limit] [--seconds 5] [--rounds 3] [--connections 16] [--skip-build]
 */
import { execFileSync } from 'node:child_process'
import { SignJWT } from 'jose'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { HttpLoadProcess } from './lib/load.js'
import { cpuMicros } from './lib/proc.js'
import { startService, type ServiceProcess } from './lib/processes.js'
import { createStoppers } from './lib/stoppers.js'
import { nestedObject } from './fixtures.js'
import { timeLayers } from './lib/layer-costs.js'
import type { HttpRequestSpec } from './scenarios/scenario.js'

const ADMIN_TOKEN = 'bench-observability-admin-token-0123456789'
/**
 * Access enforced in both variants, every request having every right without a token: without an admin
 * token (and no METRICS_PORT) no one can scrape the metrics, so none are collected; with one they are.
 * Rate limits off, so that only the metrics differ.
 */
const EVERY_RIGHT = JSON.stringify([{ prefix: '', rights: ['read', 'write', 'schema'] }])
const JWT_SECRET = 'bench-layers-jwt-secret-0123456789abcdef'

/** What the "on" variant adds: its settings, and the header fields its requests carry. */
interface Layer { env: Record<string, string>, headers: Record<string, string> }

async function layerOf (name: string): Promise<Layer> {
  switch (name) {
    case 'metrics': return { env: { AUTH_ADMIN_TOKEN: ADMIN_TOKEN }, headers: {} }
    case 'access': {
      const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('bench').setIssuer('bench')
        .setAudience('jsondocs').setExpirationTime('2h').sign(new TextEncoder().encode(JWT_SECRET))
      return {
        env: { AUTH_JWT_SECRET: JWT_SECRET, AUTH_JWT_ISSUER: 'bench', AUTH_JWT_AUDIENCE: 'jsondocs', AUTH_JWT_SCOPES: EVERY_RIGHT },
        headers: { authorization: `Bearer ${jwt}` }
      }
    }
    case 'cors': return { env: { CORS_ORIGINS: 'http://app.example.test' }, headers: { origin: 'http://app.example.test' } }
    case 'rate-limit': return { env: { RATE_LIMIT: '999999999/hour' }, headers: {} }
    default: throw new Error(`--layer takes metrics, access, cors or rate-limit, not ${name}`)
  }
}
const KEY = 'bench:object-380b'
const noMatch = { 'if-none-match': '"0"' }

interface Row { title: string, cache: boolean, request: HttpRequestSpec }

const rows: Row[] = [
  { title: 'GET /livez (no Redis)', cache: false, request: { method: 'GET', path: '/livez' } },
  { title: '380 B root, route, uncached', cache: false, request: { method: 'GET', path: `/docs/${KEY}`, headers: noMatch } },
  { title: '380 B root, route, cached', cache: true, request: { method: 'GET', path: `/docs/${KEY}`, headers: noMatch } },
  { title: '380 B root, plain GET, uncached', cache: false, request: { method: 'GET', path: `/docs/${KEY}` } },
  {
    title: '380 B set `sclr`',
    cache: false,
    request: { method: 'PUT', path: `/docs/${KEY}/sclr`, body: '1', headers: { 'content-type': 'application/json', prefer: 'return=minimal' } }
  }
]

interface Sample { rate: number, cpuPerRequest: number }

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '16' },
      layer: { type: 'string', default: 'metrics' },
      'skip-build': { type: 'boolean', default: false }
    }
  })
  const root = fileURLToPath(new URL('..', import.meta.url))
  const mode = values['skip-build'] ? 'tsx' : 'dist'
  if (mode === 'dist') execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
  const [seconds, rounds, connections] = [Number(values.seconds), Number(values.rounds), Number(values.connections)]
  const stoppers = createStoppers('observability')
  stoppers.stopOnSignals()
  const work = mkdtempSync(join(tmpdir(), 'jsondocs-observability-'))
  stoppers.add(() => rmSync(work, { recursive: true, force: true }))
  const samples = new Map<string, Sample[]>()
  const layerName = values.layer
  const layer = await layerOf(layerName)
  try {
    console.log(await timeLayers(work))
    const loads = { off: HttpLoadProcess.start(), on: HttpLoadProcess.start() }
    stoppers.add(() => { loads.off.stop(); loads.on.stop() })
    for (const cache of [false, true]) {
      const chosen = rows.filter((row) => row.cache === cache)
      const services = {
        off: await startVariant(root, mode, join(work, `off-${cache}`), cache, {}),
        on: await startVariant(root, mode, join(work, `on-${cache}`), cache, layer.env)
      }
      const scraping = layerName === 'metrics' ? scrapeEverySecond(services.on) : undefined
      try {
        for (let round = 0; round < rounds; round++) {
          for (const row of chosen) {
            const [off, on] = await Promise.all([
              measure(loads.off, services.off, row.request, seconds, connections),
              measure(loads.on, services.on, { ...row.request, headers: { ...row.request.headers, ...layer.headers } }, seconds, connections)
            ])
            for (const [variant, sample] of [['off', off], ['on', on]] as const) {
              samples.set(`${row.title}|${variant}`, [...(samples.get(`${row.title}|${variant}`) ?? []), sample])
            }
            process.stderr.write(`round ${round + 1}: ${row.title}: off ${(off.rate / 1000).toFixed(1)}k req/s, ` +
              `${off.cpuPerRequest.toFixed(2)} µs/req; on ${(on.rate / 1000).toFixed(1)}k req/s, ${on.cpuPerRequest.toFixed(2)} µs/req\n`)
          }
        }
      } finally {
        clearInterval(scraping)
        await Promise.all([services.off.stop(), services.on.stop()])
      }
    }
    console.log(report(samples, rounds, layerName))
  } finally {
    await stoppers.stopAll()
  }
}

/** A service with its own Redis, the 380 B document written; with a layer's settings or without. */
async function startVariant (root: string, mode: 'dist' | 'tsx', dataDir: string, cache: boolean, layer: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService({
    root, mode, dataDir, logLevel: 'warn', cacheMaxEntries: cache ? 1000 : 0, keyPrefix: 'jsondocs:', gcLog: join(dataDir, 'gc.log'),
    env: { AUTH_ANONYMOUS_SCOPES: EVERY_RIGHT, RATE_LIMIT: 'off', ...layer }
  })
  const put = await fetch(`${service.url}/docs/${KEY}`, { method: 'PUT', body: JSON.stringify(nestedObject()), headers: { 'content-type': 'application/json' } })
  if (!put.ok) throw new Error(`writing the document failed: ${put.status}`)
  return service
}

/** Scrapes /metrics once a second during the rows, as a Prometheus would (more often than its usual 15 s). */
function scrapeEverySecond (service: ServiceProcess): NodeJS.Timeout {
  return setInterval(() => {
    fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((response) => response.text(), () => '')
      .catch(() => '')
  }, 1000)
}

async function measure (load: HttpLoadProcess, service: ServiceProcess, request: HttpRequestSpec, seconds: number,
  connections: number): Promise<Sample> {
  await load.run(service.url, [request], { connections, seconds: Math.min(2, seconds), maxRequests: 300_000 })
  const before = cpuMicros(service.pid)
  const measured = await load.run(service.url, [request], { connections, seconds, maxRequests: 1_000_000 })
  if (measured.errors > 0) throw new Error(`${request.method} ${request.path}: ${measured.errors} errors`)
  const unexpected = Object.keys(measured.non2xx).filter((status) => status !== '304')
  if (unexpected.length > 0) throw new Error(`${request.method} ${request.path}: answers ${JSON.stringify(measured.non2xx)}`)
  return { rate: measured.rate, cpuPerRequest: (cpuMicros(service.pid) - before) / measured.requests }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

function report (samples: Map<string, Sample[]>, rounds: number, layer: string): string {
  const lines = [
    `${rounds} rounds, both variants at once, median of each; the service's CPU per request (user + system, all its threads)`,
    '',
    `| row | off: req/s | off: CPU/req | on: req/s | on: CPU/req | ${layer}: CPU/req |`,
    '| --- | --- | --- | --- | --- | --- |'
  ]
  for (const row of rows) {
    const off = samples.get(`${row.title}|off`) ?? []
    const on = samples.get(`${row.title}|on`) ?? []
    const [offCpu, onCpu] = [median(off.map((s) => s.cpuPerRequest)), median(on.map((s) => s.cpuPerRequest))]
    lines.push(`| ${row.title} | ${(median(off.map((s) => s.rate)) / 1000).toFixed(1)}k | ${offCpu.toFixed(2)} µs | ` +
      `${(median(on.map((s) => s.rate)) / 1000).toFixed(1)}k | ${onCpu.toFixed(2)} µs | ${(onCpu - offCpu).toFixed(2)} µs |`)
  }
  return lines.join('\n')
}

await main()
