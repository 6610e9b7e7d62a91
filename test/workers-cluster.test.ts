import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { whenDone } from './helpers/cleanup.js'
import { startLocalCluster } from './helpers/local-cluster.js'
import { eventually } from './helpers/local-redis.js'
import { sendOnce, spawnService } from './helpers/service-process.js'

const ADMIN_TOKEN = 'workers-cluster-admin-token-0123456789abcdef'

const send = sendOnce

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
const json = { ...admin, 'content-type': 'application/json' }
const doc = (key: string) => `/docs/${encodeURIComponent(key)}`

/** The suite's cluster when it runs on one (TEST_REDIS=cluster), else a local one of 3 masters with a replica each. */
async function clusterNodes (): Promise<string> {
  const connection = inject('redis')
  if ('clusterNodes' in connection) return connection.clusterNodes.map((node) => node.replace(/^redis:\/\//, '')).join(',')
  return (await startLocalCluster(3, { replicas: 1 })).nodes.join(',')
}

describe('WORKERS=2 on a Redis Cluster', () => {
  it('answers as one service whichever worker and master a request meets', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'jsondocs-workers-cluster-'))
    whenDone(() => rmSync(dataDir, { recursive: true, force: true }))
    const prefix = `wc:${process.pid}:${Date.now()}:`
    const service = spawnService(dataDir, {
      WORKERS: '2', REDIS_CLUSTER_NODES: await clusterNodes(), KEY_PREFIX: prefix, AUTH_ADMIN_TOKEN: ADMIN_TOKEN,
      RATE_LIMIT: 'off', LOG_REQUESTS: 'true'
    })
    const url = await service.listening
    await eventually(async () => service.output().includes('jsondocs: 2 workers listening at'), 30_000)

    // Keys whose braces would make hash tags, spread over the masters: written on one worker, read on the other.
    const keys = ['{a}', 'a{b}c', '}x{', '{}', 'plain', 'users:1', 'users:2', 'users:3', 'é{😀}']
    for (const key of keys) {
      const written = await send(url + doc(key), 'PUT', json, JSON.stringify({ key, n: 1, list: [1, 2] }))
      expect(written.status, written.body).toBe(201)
      const read = await send(url + doc(key), 'GET', admin)
      expect(read.body).toBe(JSON.stringify({ key, n: 1, list: [1, 2] }))
      expect(read.headers.etag).toBe(written.headers.etag)
    }

    // Conditional writes: a current ETag from either worker is taken, a stale one is 412.
    const { headers: first } = await send(url + doc('{a}'), 'GET', admin)
    expect((await send(url + doc('{a}') + '/n', 'PUT', { ...json, 'if-match': String(first.etag) }, '2')).status).toBe(200)
    expect((await send(url + doc('{a}') + '/n', 'PUT', { ...json, 'if-match': String(first.etag) }, '3')).status).toBe(412)

    // JSON Patch is all or nothing; an operation list is atomic.
    const patch = { ...admin, 'content-type': 'application/json-patch+json' }
    const failed = await send(url + doc('a{b}c'), 'PATCH', patch,
      JSON.stringify([{ op: 'add', path: '/list/-', value: 3 }, { op: 'test', path: '/n', value: 99 }]))
    expect(failed.status).toBe(409)
    expect((await send(url + doc('a{b}c'), 'GET', admin)).body).toBe(JSON.stringify({ key: 'a{b}c', n: 1, list: [1, 2] }))
    expect((await send(url + doc('a{b}c'), 'PATCH', patch, JSON.stringify([{ op: 'add', path: '/list/-', value: 3 }]))).status).toBe(200)
    const incremented = await send(url + doc('}x{') + '/n', 'POST', json, JSON.stringify({ op: 'incr', by: 41 }))
    expect(JSON.parse(incremented.body)).toEqual({ result: 42 })

    // A batch read over every master answers every key, never part of them.
    const batch = await send(`${url}/batch/read`, 'POST', json, JSON.stringify({ keys: [...keys, 'missing{x}'], pointer: '/n' }))
    const items = (JSON.parse(batch.body) as { items: Array<{ key: string, status: number, value?: unknown }> }).items
    expect(items.map(({ key, status }) => [key, status])).toEqual([...keys.map((key) => [key, 200]), ['missing{x}', 404]])

    // A listing cursor from one worker continues on the other, over every master.
    const listed = new Set<string>()
    // Pages of up to 1,000: the suite's cluster holds every test file's keys, which SCAN walks through.
    let cursor: string | null = ''
    for (let page = 0; cursor !== null && page < 1000; page++) {
      const answer = await send(`${url}/docs?prefix=&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, 'GET', admin)
      expect(answer.status, answer.body).toBe(200)
      const body = JSON.parse(answer.body) as { keys: string[], cursor: string | null }
      for (const key of body.keys) listed.add(key)
      cursor = body.cursor
    }
    expect([...listed].sort()).toEqual([...keys].sort())

    // A schema set through one worker binds writes on every slot through both.
    const schema = { type: 'object', properties: { n: { type: 'integer', maximum: 10 } } }
    expect((await send(`${url}/schemas/users`, 'PUT', json, JSON.stringify(schema))).status).toBe(201)
    for (const key of ['users:1', 'users:2', 'users:3', 'users:4']) {
      expect((await send(url + doc(key) + '/n', 'PUT', json, '11')).status).toBe(key === 'users:4' ? 404 : 422)
      expect((await send(url + doc(key), 'PUT', json, '{"n":11}')).status).toBe(422)
    }

    // A token made on one worker works on the other within its scope, and its revocation reaches both.
    const made = await send(`${url}/tokens`, 'POST', json, JSON.stringify({ scopes: [{ prefix: 'users:', rights: ['read'] }] }))
    expect(made.status).toBe(201)
    const { id, token } = JSON.parse(made.body) as { id: string, token: string }
    const bearer = { authorization: `Bearer ${token}` }
    for (let i = 0; i < 2; i++) {
      expect((await send(url + doc('users:1'), 'GET', bearer)).status).toBe(200)
      expect((await send(url + doc('plain'), 'GET', bearer)).status).toBe(403)
    }
    expect((await send(`${url}/tokens/${id}`, 'DELETE', admin)).status).toBe(204)
    await eventually(async () => {
      const answers = await Promise.all([0, 1, 2, 3].map(() => send(url + doc('users:1'), 'GET', bearer)))
      return answers.every(({ status }) => status === 401)
    })

    // Both workers answered.
    const answeredBy = new Set([...service.output().matchAll(/"pid":(\d+),[^\n]*"msg":"request completed"/g)].map((match) => match[1]))
    expect(answeredBy.size).toBe(2)
  }, 120_000)
})
