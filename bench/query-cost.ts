/*
 * What a query and an aggregation cost Redis and the service, beside the commands sent straight to Redis, in
 * one bounded run: the service at its defaults on its own Redis (loopback) with the query rows' indexed
 * collection, N selective queries and N aggregations through the service, then the same FT.SEARCH, the page
 * the service asks for (FT.AGGREGATE sorted on the key), the aggregation with RediSearch's reducers and the
 * aggregation as exactness needs it (each match's fields loaded) through a plain client. Each phase starts
 * with CONFIG RESETSTAT and reads INFO commandstats and INFO cpu after it.
 * With --profile DIR the service writes a CPU profile of its whole run there (node --cpu-prof).
 *   npx tsx bench/query-cost.ts [--requests 5000] [--documents 100000] [--connections 16] [--only REGEX] [--profile DIR]
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createClient } from 'redis'
import { directLoad, HttpLoadProcess, type Measurement } from './lib/load.js'
import { startService } from './lib/processes.js'
import { commandLines, costOf, cpuPerRequest, phaseHeading } from './lib/redis-stats.js'
import { AGGREGATED, COLLECTION, INDEX, prepare } from './scenarios/queries.js'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '5000' },
    documents: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '16' },
    only: { type: 'string' },
    profile: { type: 'string' }
  }
})
const requests = Number(values.requests)
const connections = Number(values.connections)
const root = join(import.meta.dirname, '..')
const KEY_PREFIX = 'bench:'
const index = KEY_PREFIX + INDEX
const JSON_BODY = { 'content-type': 'application/json' }

const selective = { filter: { '/status': 's17' }, limit: 20 }
const aggregation = {
  filter: { '/status': { $in: AGGREGATED } }, groupBy: ['/status'],
  metrics: { n: { $count: {} }, total: { $sum: '/total' }, mean: { $avg: '/total' }, lo: { $min: '/total' }, hi: { $max: '/total' } }
}
const statuses = `@f0:{${AGGREGATED.join('|')}}`

execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
const work = mkdtempSync(join(tmpdir(), 'jsondocs-query-cost-'))
const service = await startService({ root, mode: 'dist', dataDir: work, logLevel: 'warn', cacheMaxEntries: 0, keyPrefix: KEY_PREFIX, gcLog: join(work, 'gc.log'),
  ...(values.profile === undefined ? {} : { env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values.profile}` } }) })
const client = createClient({ socket: { path: service.socketPath, tls: false }, RESP: 3 })
await client.connect()
const load = HttpLoadProcess.start()
try {
  await prepare(Number(values.documents), service.url, {})
  const options = { connections, seconds: 60, maxRequests: requests }
  const post = (path: string, body: unknown) => ({ method: 'POST' as const, path: `/collections/${COLLECTION}/${path}`, body: JSON.stringify(body), headers: JSON_BODY })
  const phases: Array<{ name: string, service?: boolean, run: () => Promise<Measurement> }> = [
    { name: 'service: selective query', service: true, run: () => load.run(service.url, [post('query', selective)], options) },
    { name: 'raw: FT.SEARCH of the selective query, LIMIT 0 20', run: () => directLoad(client, ['FT.SEARCH', index, '@f0:{$v}', 'LIMIT', '0', '20', 'PARAMS', '2', 'v', 's17', 'DIALECT', '2'], options) },
    { name: 'raw: the page the service asks for (FT.AGGREGATE LOAD @__key SORTBY @__key MAX 21)', run: () => directLoad(client, ['FT.AGGREGATE', index, '@f0:{$v}', 'LOAD', '1', '@__key', 'SORTBY', '2', '@__key', 'ASC', 'MAX', '21', 'LIMIT', '0', '21', 'PARAMS', '2', 'v', 's17', 'DIALECT', '2'], options) },
    { name: 'service: aggregation', service: true, run: () => load.run(service.url, [post('aggregate', aggregation)], { ...options, maxRequests: Math.ceil(requests / 10) }) },
    { name: 'raw: FT.AGGREGATE with reducers', run: () => directLoad(client, ['FT.AGGREGATE', index, statuses, 'GROUPBY', '1', '@f0', 'REDUCE', 'COUNT', '0', 'AS', 'n', 'REDUCE', 'SUM', '1', '@f1', 'AS', 'total', 'REDUCE', 'AVG', '1', '@f1', 'AS', 'mean', 'REDUCE', 'MIN', '1', '@f1', 'AS', 'lo', 'REDUCE', 'MAX', '1', '@f1', 'AS', 'hi', 'DIALECT', '2'], { ...options, maxRequests: Math.ceil(requests / 10) }) },
    { name: 'raw: FT.AGGREGATE loading each match\'s fields by JSONPath (DIALECT 3), no reducers', run: () => directLoad(client, ['FT.AGGREGATE', index, statuses, 'LOAD', '6', '$.status', 'AS', 'v0', '$.total', 'AS', 'v1', 'LIMIT', '0', '1000', 'DIALECT', '3'], { ...options, maxRequests: Math.ceil(requests / 10) }) },
    { name: 'raw: FT.AGGREGATE loading each match\'s sortable attributes, no reducers', run: () => directLoad(client, ['FT.AGGREGATE', index, statuses, 'LOAD', '2', '@f0', '@f1', 'LIMIT', '0', '1000', 'DIALECT', '2'], { ...options, maxRequests: Math.ceil(requests / 10) }) }
  ]
  // Warm-up: the service's JIT and its remembered index.
  await load.run(service.url, [post('query', selective)], { ...options, maxRequests: 1000 })
  await load.run(service.url, [post('aggregate', aggregation)], { ...options, maxRequests: 100 })
  const only = values.only === undefined ? undefined : new RegExp(values.only)
  for (const phase of phases.filter(({ name }) => only?.test(name) ?? true)) {
    const cost = await costOf(client, service.pid, phase.run)
    process.stdout.write(phaseHeading(phase.name, cost.measured) + cpuPerRequest(cost, phase.service === true) + '\n')
    process.stdout.write(commandLines(cost.stats, cost.measured.requests))
  }
} finally {
  load.stop()
  await client.quit()
  await service.stop()
  rmSync(work, { recursive: true, force: true })
}
