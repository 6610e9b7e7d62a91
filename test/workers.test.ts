import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, inject } from 'vitest'
import { whenDone } from './helpers/cleanup.js'
import { eventually } from './helpers/local-redis.js'
import { provisionLocalRedis } from './helpers/provision.js'
import { processGone, redisPidOn, sendOnce, spawnService, whenGone } from './helpers/service-process.js'

const ADMIN_TOKEN = 'workers-test-admin-token-0123456789abcdef'

const send = sendOnce

const json = { 'content-type': 'application/json' }

/** The service processes among the children of the primary (its redis-server is not). */
function workersOf (primary: number): number[] {
  const children = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(inject('serviceEntry')) && !processGone(pid)
    } catch {
      return false
    }
  })
}

describe('WORKERS=2', () => {
  provisionLocalRedis()

  it('serves from two processes on one port that share nothing but Redis, and replaces one that dies', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'jsondocs-workers-'))
    whenDone(() => rmSync(dataDir, { recursive: true, force: true }))
    const service = spawnService(dataDir, {
      WORKERS: '2', LOG_REQUESTS: 'true', AUTH_ADMIN_TOKEN: ADMIN_TOKEN, RATE_LIMIT: 'off',
      AUTH_ANONYMOUS_SCOPES: JSON.stringify([{ prefix: '', rights: ['read', 'write', 'schema'] }])
    })
    const url = await service.listening
    const primary = service.child.pid!
    // The first worker's log line says it listens; the primary's, that both do.
    await eventually(async () => service.output().includes('jsondocs: 2 workers listening at'))
    const workers = workersOf(primary)
    expect(workers).toHaveLength(2)

    // Conditional writes, each on the next worker: an ETag from one is good on the other.
    expect((await send(`${url}/docs/w:doc`, 'PUT', json, '{"n":0}')).status).toBe(201)
    for (let n = 1; n <= 6; n++) {
      const { headers } = await send(`${url}/docs/w:doc`, 'GET')
      const written = await send(`${url}/docs/w:doc/n`, 'PUT', { ...json, 'if-match': String(headers.etag) }, String(n))
      expect(written.status, written.body).toBeLessThan(300)
    }
    expect((await send(`${url}/docs/w:doc`, 'GET')).body).toBe('{"n":6}')

    // A listing cursor made by one worker continues on the other.
    for (let i = 0; i < 12; i++) expect((await send(`${url}/docs/w:list:${i}`, 'PUT', json, String(i))).status).toBe(201)
    const listed = new Set<string>()
    let cursor: string | undefined = ''
    for (let page = 0; cursor !== undefined && page < 50; page++) {
      const answer = await send(`${url}/docs?prefix=w:list:&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, 'GET')
      expect(answer.status, answer.body).toBe(200)
      const body = JSON.parse(answer.body) as { keys: string[], cursor?: string }
      for (const key of body.keys) listed.add(key)
      cursor = body.cursor
    }
    expect(listed.size).toBe(12)

    // Both workers answered, as their access logs show.
    const answeredBy = new Set([...service.output().matchAll(/"pid":(\d+),[^\n]*"msg":"request completed"/g)].map((match) => Number(match[1])))
    expect([...answeredBy].sort()).toEqual([...workers].sort())

    // The metrics of both, summed: every 404 below is counted once, whichever worker answered it.
    for (let i = 0; i < 5; i++) expect((await send(`${url}/docs/w:missing`, 'GET')).status).toBe(404)
    const metrics = await send(`${url}/metrics`, 'GET', { authorization: `Bearer ${ADMIN_TOKEN}` })
    expect(metrics.status).toBe(200)
    expect(metrics.body).toMatch(/^jsondocs_http_request_duration_seconds_count\{route="\/docs\/:key",method="GET",status_code="404"\} 5$/m)

    // A worker killed is replaced, and once the primary has seen it die, the other answers meanwhile.
    process.kill(workers[0]!, 'SIGKILL')
    await eventually(async () => service.output().includes(`worker ${workers[0]} exited (SIGKILL); starting another`))
    for (let i = 0; i < 4; i++) expect((await send(`${url}/docs/w:doc/n`, 'GET')).body).toBe('6')
    await eventually(async () => workersOf(primary).length === 2)
    expect(workersOf(primary)).not.toContain(workers[0])

    // SIGTERM to the primary stops the workers and then Redis, and it exits with 0.
    const remaining = workersOf(primary)
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
    for (const pid of remaining) expect(processGone(pid)).toBe(true)
    expect(service.output()).toContain('closing on SIGTERM')
  }, 60_000)

  it('takes the workers and its Redis down with the primary when the primary is killed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'jsondocs-workers-'))
    whenDone(() => rmSync(dataDir, { recursive: true, force: true }))
    const service = spawnService(dataDir, { WORKERS: '2' })
    await service.listening
    const primary = service.child.pid!
    // The first worker's log line says it listens; the primary's, that both do.
    await eventually(async () => service.output().includes('jsondocs: 2 workers listening at'))
    const workers = workersOf(primary)
    expect(workers).toHaveLength(2)
    const redis = await redisPidOn(join(dataDir, 'redis', 'redis.sock'))
    service.child.kill('SIGKILL')
    for (const pid of [...workers, redis]) await whenGone(pid)
  }, 60_000)
})
