import { execFileSync, fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { rssMegabytes } from './lib/proc.js'
import { startService } from './lib/processes.js'
import { createStoppers } from './lib/stoppers.js'

const USAGE = `npm run bench:abuse [-- options]
  --seconds <s>     probe time per attack (default 10; smoke 2)
  --only <regex>    only the attacks whose name matches (the quiet baseline always runs)
  --env NAME=VALUE  a setting for the service (repeatable), e.g. --env MAX_UPLOADS=4
  --root <dir>      the service's source tree to run (default this one), to measure another version
  --skip-build      run src/server.ts with tsx instead of building dist/
  --out <dir>       where results.json goes (default bench/results/abuse-<timestamp>)
  --smoke           every attack for a moment, smaller`

/** A small document the probe reads while the service is abused. */
const PROBE_PATH = `/docs/${encodeURIComponent('abuse:probe')}`
const PROBE_DOCUMENT = { name: 'probe', tags: ['a', 'b'], n: 1, nested: { ok: true } }
/** Milliseconds between two probe reads: a light, steady client. */
const PROBE_GAP_MS = 5

interface Attack {
  name: string
  /** Probe time at least this long (the slowloris outlasts the default header timeout). */
  minSeconds?: number
  /** The message that starts it in bench/processes/abuser.mjs; none for the quiet baseline. */
  message?: (port: number, smoke: boolean) => Record<string, unknown>
}

const attacks: Attack[] = [
  { name: 'none' },
  {
    name: '2000 idle keep-alive connections',
    message: (port, smoke) => ({ attack: 'idleConnections', port, path: PROBE_PATH, count: smoke ? 200 : 2000 })
  },
  {
    name: '50 clients uploading 1 MB documents',
    message: (port, smoke) => ({ attack: 'uploads', port, count: smoke ? 5 : 50, bytes: 1024 * 1024 })
  },
  {
    name: '500 slowloris connections',
    minSeconds: 15,
    message: (port, smoke) => ({ attack: 'slowloris', port, count: smoke ? 50 : 500 })
  },
  {
    name: '8 connections pipelining 20,000 reads each',
    message: (port, smoke) => ({ attack: 'pipelining', port, path: PROBE_PATH, count: smoke ? 2 : 8, depth: smoke ? 2000 : 20_000 })
  },
  {
    name: '8 clients writing documents whose validation takes seconds ($ref fan-out)',
    message: (port, smoke) => ({ attack: 'validationBombs', port, count: smoke ? 2 : 8, depth: smoke ? 22 : 26 })
  },
  {
    name: '4 clients registering 550 kB schemas that take seconds to compile',
    message: (port, smoke) => ({ attack: 'hugeSchemas', port, count: smoke ? 1 : 4, properties: smoke ? 2000 : 10_000 })
  }
]

interface Probe {
  latenciesMs: number[]
  failures: Record<string, number>
}

/** Reads the small document over one keep-alive connection, one read at a time, until stopped. */
async function probe (port: number, until: () => boolean): Promise<Probe> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const result: Probe = { latenciesMs: [], failures: {} }
  while (!until()) {
    const started = performance.now()
    const outcome = await new Promise<string>((resolve) => {
      const request = http.get({ host: '127.0.0.1', port, path: PROBE_PATH, agent, timeout: 10_000 }, (response) => {
        response.resume()
        response.on('end', () => resolve(String(response.statusCode)))
      })
      request.on('timeout', () => request.destroy(new Error('timeout')))
      request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    if (outcome === '200') result.latenciesMs.push(performance.now() - started)
    else result.failures[outcome] = (result.failures[outcome] ?? 0) + 1
    await sleep(PROBE_GAP_MS)
  }
  agent.destroy()
  return result
}

function percentile (sorted: number[], fraction: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!
}

/** Samples a process's RSS every 100 ms; stop() answers the peak in MB. */
function sampleRss (pid: number): { stop (): number } {
  let peak = rssMegabytes(pid)
  const timer = setInterval(() => { peak = Math.max(peak, rssMegabytes(pid)) }, 100)
  return { stop: () => { clearInterval(timer); return Math.round(Math.max(peak, rssMegabytes(pid))) } }
}

/** Starts an attack in its own process; the function returned stops it and answers what it counted. */
function launch (here: string, message: Record<string, unknown>): () => Promise<unknown> {
  const abuser = fork(join(here, 'bench/processes/abuser.mjs'), { stdio: 'inherit' })
  abuser.send(message)
  return async () => {
    abuser.send('stop')
    const [answer] = await once(abuser, 'message') as [{ stats?: unknown, error?: string }]
    abuser.disconnect()
    if (answer.error) throw new Error(`abuser: ${answer.error}`)
    return answer.stats
  }
}

interface Options {
  here: string
  root: string
  mode: 'dist' | 'tsx'
  env: Record<string, string>
  seconds: number
  smoke: boolean
  work: string
}

/**
 * One attack on a service of its own, started fresh so that no attack inherits another's memory: a
 * warm-up, then the attack, and after a second the probe reads while it goes on.
 */
async function measure (attack: Attack, options: Options) {
  const { smoke } = options
  const dataDir = mkdtempSync(join(options.work, 'data-'))
  const service = await startService({
    root: options.root, mode: options.mode, dataDir, logLevel: 'warn', cacheMaxEntries: 1000, keyPrefix: 'jsondocs:',
    gcLog: join(dataDir, 'gc.log'), env: options.env
  })
  try {
    const port = Number(new URL(service.url).port)
    const stored = await fetch(service.url + PROBE_PATH, { method: 'PUT', body: JSON.stringify(PROBE_DOCUMENT), headers: { 'content-type': 'application/json' } })
    if (!stored.ok) throw new Error(`writing the probe document answered ${stored.status}`)
    const warm = Date.now() + (smoke ? 300 : 2000)
    await probe(port, () => Date.now() > warm)

    const rss = sampleRss(service.pid)
    const stop = attack.message ? launch(options.here, attack.message(port, smoke)) : async () => ({})
    await sleep(smoke ? 200 : 1000)
    const deadline = Date.now() + (smoke ? options.seconds : Math.max(options.seconds, attack.minSeconds ?? 0)) * 1000
    const probed = await probe(port, () => Date.now() > deadline)
    const attacker = await stop()
    const sorted = probed.latenciesMs.sort((a, b) => a - b)
    return {
      attack: attack.name,
      reads: sorted.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.at(-1) ?? null,
      failures: probed.failures,
      rssPeakMb: rss.stop(),
      attacker
    }
  } finally {
    await service.stop()
  }
}

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      only: { type: 'string' },
      env: { type: 'string', multiple: true },
      root: { type: 'string' },
      'skip-build': { type: 'boolean', default: false },
      out: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false }
    }
  })
  if (values.help) return console.log(USAGE)
  const here = fileURLToPath(new URL('..', import.meta.url))
  const root = resolve(values.root ?? here)
  const mode = values['skip-build'] || values.smoke ? 'tsx' : 'dist'
  if (mode === 'dist') execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
  const env = Object.fromEntries((values.env ?? []).map((setting) => {
    const [name, ...value] = setting.split('=')
    return [name!, value.join('=')]
  }))
  const only = values.only === undefined ? undefined : new RegExp(values.only)
  const chosen = attacks.filter((attack) => attack.message === undefined || only === undefined || only.test(attack.name))
  const stoppers = createStoppers('abuse')
  stoppers.stopOnSignals()
  const work = mkdtempSync(join(tmpdir(), 'jsondocs-abuse-'))
  stoppers.add(() => rmSync(work, { recursive: true, force: true }))
  const options: Options = { here, root, mode, env, seconds: Number(values.seconds ?? (values.smoke ? 2 : 10)), smoke: values.smoke, work }
  try {
    const rows = []
    for (const attack of chosen) {
      const row = await measure(attack, options)
      rows.push(row)
      const ms = (value: number | null) => value === null ? '-' : `${value.toFixed(1)} ms`
      process.stderr.write(`abuse: ${row.attack}: ${row.reads} reads, p50 ${ms(row.p50Ms)}, p99 ${ms(row.p99Ms)}, max ${ms(row.maxMs)}, ` +
        `failed ${JSON.stringify(row.failures)}, RSS peak ${row.rssPeakMb} MB, attacker ${JSON.stringify(row.attacker)}\n`)
    }
    const out = values.out ?? join(here, 'bench/results', `abuse-${new Date().toISOString().replace(/[:.]/g, '-')}`)
    mkdirSync(out, { recursive: true })
    writeFileSync(join(out, 'results.json'), JSON.stringify({ format: 'jsondocs-abuse/1', root, mode, env, seconds: options.seconds, rows }, null, 2) + '\n')
    const ms = (value: number | null) => value === null ? '-' : `${value.toFixed(1)} ms`
    console.log(['| attack | reads | p50 | p99 | max | failed reads | service RSS peak |', '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows.map((row) => `| ${row.attack} | ${row.reads} | ${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${ms(row.maxMs)} | ` +
        `${Object.values(row.failures).reduce((a, b) => a + b, 0)} | ${row.rssPeakMb} MB |`)].join('\n'))
    process.stderr.write(`abuse: results in ${out}\n`)
  } finally {
    await stoppers.stopAll()
  }
}

await main()
