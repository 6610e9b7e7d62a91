import { describe, expect, it } from 'vitest'
import type { HttpServerSettings } from '../../src/http/server.js'
import { buildTestApp, connectRedis, put, testConfig, uniqueKey } from '../helpers/app.js'
import { startOwnRedis } from '../helpers/local-redis.js'
import { RawConnection, rawRequest, type RawResponse } from '../helpers/raw-http.js'
import { createRedisClient } from '../../src/redis/plugin.js'
import { whenDone } from '../helpers/cleanup.js'

const redis = await connectRedis()
const json = { 'content-type': 'application/json' }
/** Node checks its timeouts every quarter of the shorter one here; closing takes a few milliseconds more. */
const SLACK_MS = 500

async function connectTo (socketPath: string) {
  const client = createRedisClient({ connection: { socketPath }, commandTimeoutMs: 5000 })
  await client.connect()
  whenDone(() => client.close())
  return client
}

function settings (overrides: Partial<HttpServerSettings>): HttpServerSettings {
  return { ...testConfig().http, ...overrides }
}

function expectProblem (response: RawResponse | undefined, status: number, code: string) {
  expect(response?.status).toBe(status)
  expect(response?.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(response?.json()).toMatchObject({ status, code })
}

const app = await buildTestApp({ http: settings({ headersTimeoutMs: 300, requestTimeoutMs: 800, idleTimeoutMs: 300 }) })

describe('timeouts close connections', () => {
  it('a connection that sends nothing gets 408 within HEADERS_TIMEOUT_MS', async () => {
    const connection = await RawConnection.open(app)
    const closedAfter = await connection.whenClosed(5000)
    expect(closedAfter).toBeGreaterThanOrEqual(300)
    expect(closedAfter).toBeLessThan(300 + SLACK_MS)
    expectProblem(connection.received[0], 408, 'DOCS_ERR_REQUEST_TIMEOUT')
  })

  it('a client sending its header section byte by byte (slowloris) gets 408 within HEADERS_TIMEOUT_MS', async () => {
    const connection = await RawConnection.open(app)
    const bytes = rawRequest('GET', '/health', { 'x-padding': 'x'.repeat(100) })
    let sent = 0
    const drip = setInterval(() => { if (!connection.closed && sent < bytes.length) connection.send(bytes[sent++]!) }, 20)
    const closedAfter = await connection.whenClosed(5000)
    clearInterval(drip)
    expect(sent).toBeLessThan(bytes.length)
    expect(closedAfter).toBeLessThan(300 + SLACK_MS)
    expectProblem(connection.received[0], 408, 'DOCS_ERR_REQUEST_TIMEOUT')
  })

  it('a body that does not arrive within REQUEST_TIMEOUT_MS gets 408, and nothing is written', async () => {
    const key = uniqueKey()
    const connection = await RawConnection.open(app)
    connection.send(rawRequest('PUT', `/docs/${key}`, { ...json, 'content-length': '20' }) + '{"a":')
    const closedAfter = await connection.whenClosed(5000)
    expect(closedAfter).toBeGreaterThanOrEqual(800)
    expect(closedAfter).toBeLessThan(800 + SLACK_MS)
    expectProblem(connection.received[0], 408, 'DOCS_ERR_REQUEST_TIMEOUT')
    expect(await redis.exists(app.keyPrefix + key)).toBe(0)
  })

  it('an idle keep-alive connection closes IDLE_TIMEOUT_MS after its last answer (and Node\'s second of grace)', async () => {
    const connection = await RawConnection.open(app)
    connection.send(rawRequest('GET', '/health'))
    expect((await connection.responses(1))[0]?.status).toBe(200)
    const answeredAfter = Date.now() - connection.opened
    const closedAfter = await connection.whenClosed(5000)
    expect(closedAfter! - answeredAfter).toBeGreaterThanOrEqual(300)
    expect(closedAfter! - answeredAfter).toBeLessThan(300 + 1000 + SLACK_MS)
    expect(connection.received).toHaveLength(1)
  })

  it('a client that stops reading its answers is closed once nothing moved for REQUEST_TIMEOUT_MS', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, 'x'.repeat(900_000))
    const connection = await RawConnection.open(app)
    connection.stopReading()
    connection.send(rawRequest('GET', `/docs/${key}`).repeat(40))
    await expect.poll(() => app.connections.open, { timeout: 800 + 5000 }).toBe(0)
    connection.resumeReading()
    expect(await connection.whenClosed(5000)).toBeDefined()
    expect(connection.received.length).toBeLessThan(40)
  })
})

describe('requests the service is handling', () => {
  it('are not cut off by REQUEST_TIMEOUT_MS while Redis is slow: its own deadline bounds them', async () => {
    const own = await startOwnRedis()
    const slow = await buildTestApp({
      redis: { socketPath: own.socketPath }, redisTimeoutMs: 3000, cacheMaxEntries: 0,
      http: settings({ headersTimeoutMs: 200, requestTimeoutMs: 300 })
    })
    const key = uniqueKey()
    await put(slow, `/docs/${key}`, { a: 1 })
    const admin = await connectTo(own.socketPath)
    const connection = await RawConnection.open(slow)
    await admin.sendCommand(['CLIENT', 'PAUSE', '1000', 'ALL'])
    connection.send(rawRequest('GET', `/docs/${key}`))
    const [answer] = await connection.responses(1, 5000)
    expect(answer?.status).toBe(200)
    expect(Date.now() - connection.opened).toBeGreaterThanOrEqual(900)
  })
})

describe('the connection limit (MAX_CONNECTIONS)', () => {
  it('closes the longest idle connection for a newcomer', async () => {
    const limited = await buildTestApp({ http: settings({ maxConnections: 3 }) })
    const idle: RawConnection[] = []
    for (let index = 0; index < 3; index++) {
      const connection = await RawConnection.open(limited)
      connection.send(rawRequest('GET', '/health'))
      await connection.responses(1)
      idle.push(connection)
    }
    const newcomer = await RawConnection.open(limited)
    newcomer.send(rawRequest('GET', '/health'))
    expect((await newcomer.responses(1))[0]?.status).toBe(200)
    expect(await idle[0]!.whenClosed(2000)).toBeDefined()
    expect(idle[1]!.closed || idle[2]!.closed).toBe(false)
    expect(limited.connections.open).toBe(3)
  })

  it('refuses a newcomer with 503 and Retry-After when no connection is idle', async () => {
    const limited = await buildTestApp({ http: settings({ maxConnections: 3 }) })
    const busy: RawConnection[] = []
    for (let index = 0; index < 3; index++) {
      const connection = await RawConnection.open(limited)
      connection.send(rawRequest('PUT', `/docs/${uniqueKey()}`, { ...json, 'content-length': '10' }) + '{')
      busy.push(connection)
    }
    await expect.poll(() => limited.connections.idle).toBe(0)
    const newcomer = await RawConnection.open(limited)
    newcomer.send(rawRequest('GET', '/health'))
    const [refused] = await newcomer.responses(1)
    expectProblem(refused, 503, 'DOCS_ERR_SERVICE_BUSY')
    expect(refused?.headers['retry-after']).toBe('1')
    expect(await newcomer.whenClosed(2000)).toBeDefined()
    expect(busy.some((connection) => connection.closed)).toBe(false)
  })
})

describe('large uploads take turns (MAX_UPLOADS, MAX_WAITING_UPLOADS)', () => {
  it('reads a few at once; others wait unread, in order on their connection, or get 503 when the line is full', async () => {
    const turns = await buildTestApp({ http: settings({ maxUploads: 1, maxWaitingUploads: 1 }) })
    const body = JSON.stringify({ text: 'x'.repeat(100_000) })
    const upload = (key: string) => rawRequest('PUT', `/docs/${key}`, { ...json, 'content-length': String(body.length) })
    const [first, second, third] = [uniqueKey(), uniqueKey(), uniqueKey()]
    const reading = await RawConnection.open(turns)
    reading.send(upload(first!) + body.slice(0, 1000))
    await expect.poll(() => turns.connections.uploads).toEqual({ active: 1, waiting: 0 })
    const waiting = await RawConnection.open(turns)
    waiting.send(upload(second!) + body + rawRequest('GET', `/docs/${second}/text`))
    await expect.poll(() => turns.connections.uploads).toEqual({ active: 1, waiting: 1 })

    const refused = await RawConnection.open(turns)
    refused.send(upload(third!) + body)
    const [busy] = await refused.responses(1)
    expectProblem(busy, 503, 'DOCS_ERR_SERVICE_BUSY')
    expect(busy?.headers['retry-after']).toBe('1')
    expect(await refused.whenClosed(2000)).toBeDefined()
    expect(waiting.received).toHaveLength(0)
    expect(await redis.exists(turns.keyPrefix + second)).toBe(0)

    reading.send(body.slice(1000))
    expect((await reading.responses(1))[0]?.status).toBe(201)
    const answers = await waiting.responses(2)
    expect(answers.map((answer) => answer.status)).toEqual([201, 200])
    expect(answers[1]!.body.length).toBe(100_002)
    expect(turns.connections.uploads).toEqual({ active: 0, waiting: 0 })
    expect(await redis.exists(turns.keyPrefix + third)).toBe(0)
  })
})

describe('closing the app', () => {
  it('serves the requests it has, closing each connection after its answer, and idle ones at once', async () => {
    const closing = await buildTestApp({ http: settings({ idleTimeoutMs: 30_000 }) })
    const key = uniqueKey()
    const idle = await RawConnection.open(closing)
    idle.send(rawRequest('GET', '/health'))
    await idle.responses(1)
    const busy = await RawConnection.open(closing)
    busy.send(rawRequest('PUT', `/docs/${key}`, { ...json, 'content-length': '7' }) + '{"a":')
    await expect.poll(() => closing.connections.idle).toBe(1)
    const closed = closing.close()
    expect(await idle.whenClosed(2000)).toBeDefined()
    busy.send('1}')
    expect((await busy.responses(1))[0]?.status).toBe(201)
    expect(await busy.whenClosed(2000)).toBeDefined()
    await closed
  })
})
