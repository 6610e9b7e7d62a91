import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createClient } from 'redis'
import { loadEnvironment } from '../src/config.js'
import { describeMachine } from './lib/environment.js'
import { cpuMicros } from './lib/proc.js'
import { redisPidOf, startCeiling, startService, startWebdis } from './lib/processes.js'
import { putDocuments } from './lib/put-documents.js'
import { createStoppers } from './lib/stoppers.js'
import { runWrk, type WrkResult, type WrkRun } from './lib/wrk.js'
import { nestedObject } from './fixtures.js'
import { docPath } from './scenarios/scenario.js'

const USAGE = `npm run bench:wrk [-- options]
  --duration <s>     wrk's run per target (default 10; smoke 1)
  --connections <n>  wrk's connections (default 16)
  --threads <n>      wrk's threads (default 1)
  --out <dir>        where results go (default bench/results/<timestamp>-wrk; smoke: a temp dir)
  --smoke            every target for a second, failing on any error`

const root = fileURLToPath(new URL('..', import.meta.url))
const KEY_PREFIX = 'jsondocs:'
const KEY = 'bench:wrk'

interface Target {
  name: string
  url: string
  /** A request other than a plain GET: the wrk script that sends it. */
  script?: string
  /** The HTTP server's process, and the Redis behind it if any: CPU per request is read from /proc. */
  pid: number
  redisPid?: number
}

interface TargetResult extends WrkResult {
  name: string
  url: string
  cpuUsPerRequest: number
  redisCpuUsPerRequest?: number
}

const stoppers = createStoppers('bench:wrk')

function parseOptions (argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      connections: { type: 'string', default: '16' },
      threads: { type: 'string', default: '1' },
      out: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false }
    },
    strict: true
  })
  if (values.help) {
    console.log(USAGE)
    process.exit(0)
  }
  const whole = (name: string, text: string) => {
    const value = Number(text)
    if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} takes a positive whole number, not "${text}"`)
    return value
  }
  const smoke = values.smoke === true
  const run: WrkRun = {
    seconds: whole('duration', values.duration ?? (smoke ? '1' : '10')),
    connections: whole('connections', values.connections!),
    threads: whole('threads', values.threads!)
  }
  return { smoke, run, out: values.out }
}

/** The PID of the Redis on a unix socket. */
async function redisPidAt (socketPath: string): Promise<number> {
  const client = createClient({ socket: { path: socketPath, reconnectStrategy: false } })
  await client.connect()
  try {
    return await redisPidOf(client)
  } finally {
    client.destroy()
  }
}

/** Every target of one read answers the same bytes: the comparison is of equal work. */
async function checkSameAnswers (targets: Target[]): Promise<void> {
  const bodies = await Promise.all(targets.map(async (target) => {
    const response = await fetch(target.url)
    if (!response.ok) throw new Error(`${target.name} answered ${response.status}`)
    return response.text()
  }))
  const differing = targets.filter((_, index) => bodies[index] !== bodies[0])
  if (differing.length) throw new Error(`${differing.map((t) => t.name).join(', ')} answered other bytes than ${targets[0]!.name}`)
}

async function measure (target: Target, run: WrkRun, warmup: boolean): Promise<TargetResult> {
  if (warmup) await runWrk(root, target.url, { ...run, seconds: 1 }, target.script)
  const before = [cpuMicros(target.pid), target.redisPid === undefined ? 0 : cpuMicros(target.redisPid)]
  const result = await runWrk(root, target.url, run, target.script)
  const perRequest = (pid: number, start: number) => (cpuMicros(pid) - start) / Math.max(1, result.requests)
  return {
    name: target.name,
    url: target.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, ''),
    ...result,
    cpuUsPerRequest: perRequest(target.pid, before[0]!),
    ...(target.redisPid === undefined ? {} : { redisCpuUsPerRequest: perRequest(target.redisPid, before[1]!) })
  }
}

/** Each guarded write of jsondocs and the bare command it is measured against. */
const WRITE_PAIRS = [['jsondocs: PUT sclr 1', 'Webdis: JSON.SET sclr 1'], ['jsondocs: POST sclr incr', 'Webdis: JSON.NUMINCRBY sclr 1']] as const

function toMarkdown (results: TargetResult[], run: WrkRun): string {
  const ceiling = results[0]!.rate
  const n = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
  const lines = [
    `# wrk -t${run.threads} -c${run.connections} -d${run.seconds}s, side by side`,
    '',
    '| target | path | req/s | × ceiling | mean ms | p50 ms | p90 ms | p99 ms | max ms | server CPU µs/req | Redis CPU µs/req | errors |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'
  ]
  for (const r of results) {
    const redis = r.redisCpuUsPerRequest === undefined ? '' : n(r.redisCpuUsPerRequest, 1)
    lines.push(`| ${r.name} | \`${r.url}\` | ${n(r.rate)} | ${n(r.rate / ceiling, 2)} | ${n(r.latency.mean, 2)} | ` +
      `${n(r.latency.p50, 2)} | ${n(r.latency.p90, 2)} | ${n(r.latency.p99, 2)} | ${n(r.latency.max, 1)} | ` +
      `${n(r.cpuUsPerRequest, 1)} | ${redis} | ${r.non2xx + r.socketErrors} |`)
  }
  const rateOf = (name: string) => results.find((result) => result.name === name)?.rate
  const ratios = WRITE_PAIRS.flatMap(([ours, theirs]) => {
    const [a, b] = [rateOf(ours), rateOf(theirs)]
    return a === undefined || b === undefined ? [] : [`${ours} at ${n(a / b, 2)}x ${theirs}`]
  })
  if (ratios.length) lines.push('', `Writes, same run: ${ratios.join('; ')}.`)
  return lines.join('\n') + '\n'
}

async function run (options: ReturnType<typeof parseOptions>): Promise<{ results: TargetResult[], out: string }> {
  execFileSync('bash', [join(root, 'scripts/provision-bench-tools.sh')], { stdio: 'inherit' })
  const mode = options.smoke ? 'tsx' : 'dist'
  if (mode === 'dist') execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
  const work = mkdtempSync(join(tmpdir(), 'jsondocs-wrk-'))
  stoppers.add(() => rmSync(work, { recursive: true, force: true }))

  const ceiling = await startCeiling(root, 'warn')
  stoppers.add(() => ceiling.stop())
  const service = async (name: string, cacheMaxEntries: number) => {
    const started = await startService({
      root, mode, dataDir: join(work, name), logLevel: 'warn', cacheMaxEntries, keyPrefix: KEY_PREFIX, gcLog: join(work, `gc-${name}.log`)
    })
    stoppers.add(() => started.stop())
    await putDocuments(started.url, { [KEY]: nestedObject() })
    return { ...started, redisPid: await redisPidAt(started.socketPath) }
  }
  const uncached = await service('cache-off', 0)
  const defaults = await service('defaults', loadEnvironment({}).CACHE_MAX_ENTRIES)
  const webdis = await startWebdis(root, work, uncached.socketPath)
  stoppers.add(() => webdis.stop())

  const reads = [{ what: 'root', tokens: [] as string[], webdis: '' }, { what: 'sclr', tokens: ['sclr'], webdis: '/sclr' }]
  const targets: Target[] = [{ name: 'ceiling: fastify no-op', url: `${ceiling.url}/noop`, pid: ceiling.pid }]
  for (const read of reads) {
    const group: Target[] = [
      { name: `jsondocs, cache off: GET ${read.what}`, url: uncached.url + docPath(KEY, read.tokens), pid: uncached.pid, redisPid: uncached.redisPid },
      { name: `jsondocs, defaults: GET ${read.what}`, url: defaults.url + docPath(KEY, read.tokens), pid: defaults.pid, redisPid: defaults.redisPid },
      { name: `Webdis: JSON.GET ${read.what}`, url: `${webdis.url}/JSON.GET/${KEY_PREFIX}${KEY}${read.webdis}.txt`, pid: webdis.pid, redisPid: uncached.redisPid }
    ]
    await checkSameAnswers(group)
    targets.push(...group)
  }
  // Writes: a guarded leaf write and an increment through jsondocs (version, preconditions, schema guard,
  // limits), beside the bare command through Webdis, on the same document and the same Redis.
  const wrkScript = (name: string, method: string, body: string) => {
    const file = join(work, `${name}.lua`)
    writeFileSync(file, `wrk.method = "${method}"\nwrk.body = '${body}'\nwrk.headers["Content-Type"] = "application/json"\n`)
    return file
  }
  const put = wrkScript('put', 'PUT', '1')
  const incr = wrkScript('incr', 'POST', '{"op":"incr","by":1}')
  targets.push(
    { name: 'jsondocs: PUT sclr 1', url: uncached.url + docPath(KEY, ['sclr']), pid: uncached.pid, redisPid: uncached.redisPid, script: put },
    { name: 'Webdis: JSON.SET sclr 1', url: `${webdis.url}/JSON.SET/${KEY_PREFIX}${KEY}/$.sclr/1`, pid: webdis.pid, redisPid: uncached.redisPid },
    { name: 'jsondocs: POST sclr incr', url: uncached.url + docPath(KEY, ['sclr']), pid: uncached.pid, redisPid: uncached.redisPid, script: incr },
    { name: 'Webdis: JSON.NUMINCRBY sclr 1', url: `${webdis.url}/JSON.NUMINCRBY/${KEY_PREFIX}${KEY}/$.sclr/1`, pid: webdis.pid, redisPid: uncached.redisPid }
  )
  // The machine slows under sustained load: the ceiling again at the end shows by how much.
  targets.push({ ...targets[0]!, name: 'ceiling again, at the end' })

  const results: TargetResult[] = []
  for (const target of targets) {
    const result = await measure(target, options.run, !options.smoke)
    results.push(result)
    process.stderr.write(`bench:wrk: ${target.name.padEnd(36)} ${Math.round(result.rate).toLocaleString('en-US').padStart(7)} req/s` +
      `  p99 ${result.latency.p99.toFixed(2)} ms\n`)
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const out = options.out ?? (options.smoke ? mkdtempSync(join(tmpdir(), 'jsondocs-wrk-smoke-')) : join(root, 'bench/results', `${stamp}-wrk`))
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, 'results.md'), toMarkdown(results, options.run))
  writeFileSync(join(out, 'results.json'), JSON.stringify({
    format: 'jsondocs-wrk/1', machine: describeMachine(), run: options.run, fixture: `${KEY_PREFIX}${KEY}: the ~380 B nested object`, results
  }, null, 2) + '\n')
  return { results, out }
}

async function main (): Promise<void> {
  let options: ReturnType<typeof parseOptions>
  try {
    options = parseOptions(process.argv.slice(2))
  } catch (error) {
    console.error(`bench:wrk: ${(error as Error).message}\n${USAGE}`)
    process.exitCode = 2
    return
  }
  stoppers.stopOnSignals()
  try {
    const { results, out } = await run(options)
    await stoppers.stopAll()
    console.log(toMarkdown(results, options.run))
    console.error(`bench:wrk: results in ${out}`)
    const failed = results.filter((result) => result.non2xx + result.socketErrors > 0)
    if (failed.length) {
      console.error(`bench:wrk: FAILED: errors from ${failed.map((result) => result.name).join(', ')}`)
      process.exitCode = 1
    }
  } catch (error) {
    console.error(`bench:wrk: ${(error as Error).stack ?? String(error)}`)
    await stoppers.stopAll()
    process.exitCode = 1
  }
}

await main()
