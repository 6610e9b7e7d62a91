import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { provisionedBinaries } from '../../src/redis/local-server.js'
import { createRedisClient } from '../../src/redis/plugin.js'
import { buildTestApp, get, put, send } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { eventually } from '../helpers/local-redis.js'
import { freePort } from '../helpers/ports.js'
import { provisionLocalRedis } from '../helpers/provision.js'

/** A redis-server with the modules on a loopback TCP port (replication needs TCP), killed after the test. */
async function startTcpRedis (extra: string[] = []) {
  provisionLocalRedis()
  const port = await freePort()
  // A master writes an RDB file for each replica's first sync: into a folder of the test's own.
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-replication-'))
  whenDone(() => rmSync(dir, { recursive: true, force: true }))
  const child = spawn(provisionedBinaries.server, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--loglevel', 'warning',
    ...provisionedBinaries.modules.flatMap((module) => ['--loadmodule', module]), ...extra
  ], { stdio: 'ignore' })
  whenDone(() => { child.kill('SIGCONT'); child.kill('SIGKILL') })
  const client = createRedisClient({ connection: { url: `redis://127.0.0.1:${port}` }, commandTimeoutMs: 5000 })
  await eventually(async () => client.connect().then(() => true, () => false))
  whenDone(() => client.destroy())
  return { port, child, client }
}

describe('WRITE_REPLICAS=1', async () => {
  // Redis waits 5 s by default before a diskless sync, for more replicas to come: this master has one.
  const master = await startTcpRedis(['--repl-diskless-sync-delay', '0'])
  const replica = await startTcpRedis(['--replicaof', '127.0.0.1', String(master.port)])
  await eventually(async () => /slave0:.*state=online/.test(String(await master.client.sendCommand(['INFO', 'replication']))))
  const app = await buildTestApp({
    redis: { url: `redis://127.0.0.1:${master.port}` }, redisTimeoutMs: 2000, writeReplicas: { replicas: 1, timeoutMs: 300 }
  })
  const replicaHas = async (key: string) => replica.client.sendCommand<string | null>(['JSON.GET', app.keyPrefix + key, '$'])

  it('acknowledges a write once the replica holds it', async () => {
    expect((await put(app, '/docs/w:1', { n: 1 })).statusCode).toBe(201)
    expect(await replicaHas('w:1')).toBe('[{"n":1}]')
    expect((await put(app, '/docs/w:1/n', 2)).statusCode).toBe(200)
    expect(await replicaHas('w:1')).toBe('[{"n":2}]')
    const batch = await send(app, 'POST', '/batch/write', JSON.stringify({ items: [{ key: 'w:2', value: 2 }, { key: 'w:3', value: 3 }] }))
    expect(batch.statusCode, batch.body).toBe(200)
    expect([await replicaHas('w:2'), await replicaHas('w:3')]).toEqual(['[2]', '[3]'])
  })

  it('answers 503 with the outcome unknown when the replica does not confirm in time, and recovers by itself', async () => {
    replica.child.kill('SIGSTOP')
    try {
      const started = Date.now()
      const answer = await put(app, '/docs/w:stalled', { n: 1 })
      expect(Date.now() - started).toBeLessThan(1500)
      expect(answer.statusCode).toBe(503)
      expect(answer.headers['retry-after']).toBeDefined()
      expect(answer.json()).toMatchObject({ code: 'DOCS_ERR_REPLICATION_TIMEOUT', status: 503 })
      expect(answer.json().detail).toContain('outcome is unknown')
      // The master has it: "unknown" is what a failover now would decide.
      expect((await get(app, '/docs/w:stalled')).statusCode).toBe(200)
    } finally {
      replica.child.kill('SIGCONT')
    }
    await eventually(async () => (await put(app, '/docs/w:stalled/n', 2)).statusCode === 200)
    expect(await replicaHas('w:stalled')).toBe('[{"n":2}]')
  })
})
