import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { appConfigFrom, loadEnvironment } from '../src/config.js'
import { startServer } from '../src/server.js'
import { provisionLocalRedis } from './helpers/provision.js'
import { serviceCommand, spawnService } from './helpers/service-process.js'

describe('the server with no REDIS_URL', () => {
  provisionLocalRedis()
  const dataDir = mkdtempSync(join(tmpdir(), 'jsondocs-server-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
  const environment = () => loadEnvironment({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' })

  it('starts its own Redis, serves over a real socket, and keeps documents across a restart', async () => {
    const first = await startServer(environment())
    try {
      const created = await fetch(`${first.url}/docs/kept`, {
        method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"survives":[1,2,3]}'
      })
      expect(created.status).toBe(201)
    } finally {
      await first.close()
    }

    const second = await startServer(environment())
    try {
      const read = await fetch(`${second.url}/docs/kept/survives/2`)
      expect(read.status).toBe(200)
      expect(await read.text()).toBe('3')
      expect((await fetch(`${second.url}/health`)).status).toBe(200)
    } finally {
      await second.close()
    }
  })

  it('stops its own Redis when the port is taken, so nothing is left running', async () => {
    const running = await startServer(environment())
    const otherDir = mkdtempSync(join(tmpdir(), 'jsondocs-server-'))
    const socket = join(otherDir, 'redis', 'redis.sock')
    try {
      const port = new URL(running.url).port
      const refused = startServer(loadEnvironment({ PORT: port, DATA_DIR: otherDir, LOG_LEVEL: 'silent' }))
      await expect(refused).rejects.toThrow(/EADDRINUSE/)
      await expect(connectTo(socket)).rejects.toThrow()
    } finally {
      await running.close()
      await shutDownLeftover(socket)
      rmSync(otherDir, { recursive: true, force: true })
    }
  })

  it('stops its own Redis on a signal that arrives while it is still starting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jsondocs-server-'))
    const socket = join(dir, 'redis', 'redis.sock')
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'silent' }
    delete env['REDIS_URL']
    const child = spawn(process.execPath, serviceCommand(), { env, stdio: 'ignore' })
    const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
    try {
      await vi.waitFor(() => { if (!existsSync(socket)) throw new Error('no socket yet') }, { timeout: 15_000, interval: 5 })
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      await expect(connectTo(socket)).rejects.toThrow()
    } finally {
      child.kill('SIGKILL')
      await shutDownLeftover(socket)
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('validates writes in its worker threads when run from its sources with tsx, as npm run dev runs it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jsondocs-server-'))
    const service = spawnService(dir, {}, { fromSources: true })
    try {
      const url = await service.listening
      const send = (path: string, body: string) =>
        fetch(url + path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body })
      expect((await send('/schemas/people', '{"type":"object","required":["name"]}')).status).toBe(201)
      const refused = await send('/docs/people:1', '{"age":1}')
      expect(refused.status).toBe(422)
      expect(((await refused.json()) as { errors: unknown[] }).errors).toEqual([expect.objectContaining({ pointer: '', keyword: 'required' })])
      expect((await send('/docs/people:1', '{"name":"Ann"}')).status).toBe(201)
    } finally {
      service.child.kill('SIGTERM')
      expect(await service.exited).toBe(0)
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses a second server on the same data folder', async () => {
    const running = await startServer(environment())
    try {
      await expect(startServer(environment())).rejects.toThrow(`Another jsondocs (pid ${process.pid}) is using`)
    } finally {
      await running.close()
    }
  })
})

/** A client of the Redis on a unix socket, once connected; rejects when nothing answers there. */
function connectTo (socket: string) {
  return createClient({ socket: { path: socket, reconnectStrategy: false } }).connect()
}

/** Stops a redis-server a failed test left answering on socket, if any. */
async function shutDownLeftover (socket: string): Promise<void> {
  let client: Awaited<ReturnType<typeof connectTo>>
  try {
    client = await connectTo(socket)
  } catch {
    return
  }
  // Redis closes the connection without replying to SHUTDOWN.
  client.sendCommand(['SHUTDOWN', 'NOSAVE']).catch(() => undefined)
  await vi.waitFor(() => { if (client.isOpen) throw new Error('still open') }, { timeout: 5_000 }).catch(() => undefined)
  client.destroy()
}

describe('configuration', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ MAX_DEPTH: '500' }, 'MAX_DEPTH'],
    [{ BODY_LIMIT: '-1' }, 'BODY_LIMIT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ CACHE_MAX_ENTRIES: '-1' }, 'CACHE_MAX_ENTRIES'],
    [{ LOG_REQUESTS: 'sometimes' }, 'LOG_REQUESTS'],
    [{ MAX_DOCUMENT_BYTES: '10' }, 'MAX_DOCUMENT_BYTES'],
    [{ MAX_WORK_BYTES: 'lots' }, 'MAX_WORK_BYTES'],
    [{ MAX_DOCUMENT_BYTES: '8388608' }, 'MAX_REPLY_BYTES must be at least MAX_DOCUMENT_BYTES'],
    [{ MAX_CONNECTIONS: '0' }, 'MAX_CONNECTIONS'],
    [{ IDLE_TIMEOUT_MS: 'soon' }, 'IDLE_TIMEOUT_MS'],
    [{ MAX_UPLOADS: '0' }, 'MAX_UPLOADS'],
    [{ MAX_WAITING_UPLOADS: '-1' }, 'MAX_WAITING_UPLOADS'],
    [{ HEADERS_TIMEOUT_MS: '40000' }, 'HEADERS_TIMEOUT_MS'],
    [{ REQUEST_TIMEOUT_MS: '0' }, 'REQUEST_TIMEOUT_MS'],
    [{ MAX_VALIDATION_MS: '0' }, 'MAX_VALIDATION_MS'],
    [{ MAX_VALIDATION_MEMORY_MB: '8' }, 'MAX_VALIDATION_MEMORY_MB'],
    [{ VALIDATION_WORKERS: '0' }, 'VALIDATION_WORKERS'],
    [{ BASE_PATH: 'api' }, 'BASE_PATH'],
    [{ BASE_PATH: '/api/' }, 'BASE_PATH'],
    [{ BASE_PATH: '/' }, 'BASE_PATH'],
    [{ BASE_PATH: '/a//b' }, 'BASE_PATH'],
    [{ BASE_PATH: '/a/../b' }, 'BASE_PATH'],
    [{ BASE_PATH: '/.well-known' }, 'BASE_PATH'],
    [{ BASE_PATH: '/:tenant' }, 'BASE_PATH'],
    [{ BASE_PATH: '/docs*' }, 'BASE_PATH'],
    [{ BASE_PATH: '/a%2Fb' }, 'BASE_PATH'],
    [{ BASE_PATH: '/a?b' }, 'BASE_PATH'],
    [{ BASE_PATH: '/' + 'a'.repeat(256) }, 'BASE_PATH'],
    [{ AUTH_ADMIN_TOKEN: 'short-secret' }, 'AUTH_ADMIN_TOKEN'],
    [{ AUTH_ADMIN_TOKEN: 'a token with spaces in it' }, 'AUTH_ADMIN_TOKEN'],
    [{ METRICS_PORT: '70000' }, 'METRICS_PORT'],
    [{ PORT: '9100', METRICS_PORT: '9100' }, 'METRICS_PORT must differ from PORT'],
    [{ EVENTS_MAXLEN: '-1' }, 'EVENTS_MAXLEN'],
    [{ EVENTS_RETENTION_MS: '10' }, 'EVENTS_RETENTION_MS'],
    [{ EVENTS_FEED_MAXLEN: '-1' }, 'EVENTS_FEED_MAXLEN'],
    [{ STREAM_HEARTBEAT_MS: '30000' }, 'STREAM_HEARTBEAT_MS must be less than REQUEST_TIMEOUT_MS'],
    [{ MAX_STREAMS: '4096' }, 'MAX_STREAMS must be less than MAX_CONNECTIONS'],
    [{ STREAM_TICKET_TTL_MS: '999' }, 'STREAM_TICKET_TTL_MS']
  ])('refuses %j with a message naming the variable', (environment, name) => {
    expect(() => loadEnvironment(environment)).toThrow(name)
  })

  it('takes a BASE_PATH of segments of unreserved characters', () => {
    expect(loadEnvironment({ BASE_PATH: '/api' }).BASE_PATH).toBe('/api')
    expect(loadEnvironment({ BASE_PATH: '/jsondocs/v1.2_x~y-z' }).BASE_PATH).toBe('/jsondocs/v1.2_x~y-z')
  })

  it('never repeats a refused admin token in its message', () => {
    for (const token of ['short-secret', 'a secret with spaces in it', 'x'.repeat(600)]) {
      expect(() => loadEnvironment({ AUTH_ADMIN_TOKEN: token })).toThrow(expect.objectContaining({
        message: expect.not.stringContaining(token.slice(0, 12)) as unknown as string
      }))
    }
  })

  it('takes the admin token and the metrics port into the app\'s configuration', () => {
    const environment = loadEnvironment({ HOST: '10.0.0.5', AUTH_ADMIN_TOKEN: 'an-admin-token-of-32-characters!', METRICS_PORT: '9100' })
    expect(appConfigFrom(environment, { socketPath: '/tmp/redis.sock' })).toMatchObject({
      access: { adminToken: 'an-admin-token-of-32-characters!' }, metricsListener: { host: '10.0.0.5', port: 9100 }
    })
    const bare = appConfigFrom(loadEnvironment({}), { socketPath: '/tmp/redis.sock' })
    expect(bare.access.adminToken).toBeUndefined()
    expect(bare.metricsListener).toBeUndefined()
  })

  it('has working defaults', () => {
    expect(loadEnvironment({})).toMatchObject({
      HOST: '127.0.0.1', PORT: 3000, BASE_PATH: '', KEY_PREFIX: 'jsondocs:', BODY_LIMIT: 1048576, MAX_DEPTH: 100, DATA_DIR: 'data',
      CACHE_MAX_ENTRIES: 1000, LOG_REQUESTS: false, MAX_DOCUMENT_BYTES: 1048576, MAX_REPLY_BYTES: 4194304, MAX_WORK_BYTES: 2097152,
      MAX_CONNECTIONS: 4096, HEADERS_TIMEOUT_MS: 10000, REQUEST_TIMEOUT_MS: 30000, IDLE_TIMEOUT_MS: 5000, MAX_UPLOADS: 2,
      MAX_WAITING_UPLOADS: 64, MAX_VALIDATION_MS: 1000, MAX_VALIDATION_MEMORY_MB: 256, WORKERS: 1, WRITE_REPLICAS: 0,
      WRITE_REPLICAS_TIMEOUT_MS: 1000
    })
    const config = appConfigFrom(loadEnvironment({}), { socketPath: '/tmp/unused.sock' })
    expect(config.validation.workers).toBe(Math.max(1, availableParallelism() - 1))
    expect(config.writeReplicas).toBeUndefined()
    const shared = appConfigFrom(loadEnvironment({ WORKERS: '4' }), { socketPath: '/tmp/unused.sock' })
    expect(shared.validation.workers).toBe(Math.max(1, Math.floor((availableParallelism() - 1) / 4)))
  })

  it('cuts QUERY_TIMEOUT_MS to half of REDIS_TIMEOUT_MS, so that a search ends before its call does', () => {
    expect(appConfigFrom(loadEnvironment({ REDIS_TIMEOUT_MS: '300' }), { url: 'redis://127.0.0.1' }).queryTimeoutMs).toBe(150)
    expect(appConfigFrom(loadEnvironment({}), { url: 'redis://127.0.0.1' }).queryTimeoutMs).toBe(500)
  })

  it('takes WRITE_REPLICAS with a timeout shorter than REDIS_TIMEOUT_MS', () => {
    expect(appConfigFrom(loadEnvironment({ WRITE_REPLICAS: '1' }), { socketPath: '/tmp/unused.sock' }).writeReplicas)
      .toEqual({ replicas: 1, timeoutMs: 1000 })
    expect(() => loadEnvironment({ WRITE_REPLICAS: '1', WRITE_REPLICAS_TIMEOUT_MS: '2000' })).toThrow('less than REDIS_TIMEOUT_MS')
  })
})
