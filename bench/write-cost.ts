/*
 * What a guarded write costs Redis, beside the raw command, in one bounded run: the service at its
 * defaults on its own Redis (loopback), N PUTs of `sclr` (Prefer: return=minimal) and N increments through
 * the service, then N raw JSON.SET and JSON.NUMINCRBY through a plain client. Each phase starts with
 * CONFIG RESETSTAT and reads INFO commandstats and INFO cpu after it: Redis CPU per request, commands
 * per request and the usec_per_call of each.
 *   npx tsx bench/write-cost.ts [--requests 20000] [--connections 16] [--mode tsx|dist]
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createClient } from 'redis'
import { nestedObject } from './fixtures.js'
import { directLoad, HttpLoadProcess } from './lib/load.js'
import { startService } from './lib/processes.js'
import { putDocuments } from './lib/put-documents.js'
import { commandLines, costOf, cpuPerRequest, phaseHeading } from './lib/redis-stats.js'
import { docPath } from './scenarios/scenario.js'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '16' },
    mode: { type: 'string', default: 'dist' }
  }
})
const requests = Number(values.requests)
const connections = Number(values.connections)
const mode = values.mode === 'tsx' ? 'tsx' : 'dist'
const root = join(import.meta.dirname, '..')
const KEY_PREFIX = 'bench:'
const KEY = 'cost'

if (mode === 'dist') execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
const work = mkdtempSync(join(tmpdir(), 'jsondocs-write-cost-'))
const service = await startService({ root, mode, dataDir: work, logLevel: 'warn', cacheMaxEntries: 0, keyPrefix: KEY_PREFIX, gcLog: join(work, 'gc.log') })
const client = createClient({ socket: { path: service.socketPath, tls: false }, RESP: 2 })
await client.connect()
const load = HttpLoadProcess.start()
try {
  await putDocuments(service.url, { [KEY]: nestedObject() })
  const path = docPath(KEY, ['sclr'])
  const put = { method: 'PUT' as const, path, body: '1', headers: { 'content-type': 'application/json', prefer: 'return=minimal' } }
  const incr = { method: 'POST' as const, path, body: '{"op":"incr","by":1}', headers: { 'content-type': 'application/json', prefer: 'return=minimal' } }
  const options = { connections, seconds: 60, maxRequests: requests }
  const phases = [
    { name: 'service: PUT sclr', run: () => load.run(service.url, [put], options) },
    { name: 'raw: JSON.SET $.sclr', run: () => directLoad(client, ['JSON.SET', KEY_PREFIX + KEY, '$.sclr', '1'], options) },
    { name: 'service: POST sclr incr', run: () => load.run(service.url, [incr], options) },
    { name: 'raw: JSON.NUMINCRBY $.sclr', run: () => directLoad(client, ['JSON.NUMINCRBY', KEY_PREFIX + KEY, '$.sclr', '1'], options) }
  ]
  // Warm-up: the service's JIT and the function library loaded.
  await load.run(service.url, [put], { ...options, maxRequests: 2000 })
  await load.run(service.url, [incr], { ...options, maxRequests: 2000 })
  for (const phase of phases) {
    const cost = await costOf(client, service.pid, phase.run)
    const { measured, stats } = cost
    const n = measured.requests
    const inner = [...stats].filter(([name]) => name !== 'fcall')
    const perRequest = inner.reduce((sum, [, s]) => sum + s.calls, 0) / n
    const fcall = stats.get('fcall')
    process.stdout.write(phaseHeading(phase.name, measured) + cpuPerRequest(cost, phase.name.startsWith('service')) +
      (fcall ? `; FCALL ${(fcall.usec / fcall.calls).toFixed(1)} µs per call` : '') +
      `; ${perRequest.toFixed(2)} commands per request${fcall ? ' inside the script' : ''}\n`)
    process.stdout.write(commandLines(stats, n))
  }
} finally {
  load.stop()
  await client.quit()
  await service.stop()
  rmSync(work, { recursive: true, force: true })
}
