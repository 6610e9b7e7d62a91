import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, put, uniqueKey } from '../helpers/app.js'
import { RawConnection, rawRequest } from '../helpers/raw-http.js'

const app = await buildTestApp()
const redis = await connectRedis()
const json = { 'content-type': 'application/json' }

describe('pipelined requests on one connection (RFC 9112 section 9.3.2)', () => {
  it('take effect and are answered in the order they were sent', async () => {
    const key = uniqueKey()
    const connection = await RawConnection.open(app)
    connection.send(rawRequest('PUT', `/docs/${key}`, json, '{"a":1}') + rawRequest('GET', `/docs/${key}`) +
      rawRequest('DELETE', `/docs/${key}`) + rawRequest('GET', `/docs/${key}`))
    const answers = await connection.responses(4)
    expect(answers.map((answer) => answer.status)).toEqual([201, 200, 204, 404])
    expect(answers[1]!.body).toBe('{"a":1}')
    expect(await redis.exists(app.keyPrefix + key)).toBe(0)
  })

  it('keep their order when reads are answered from the answer cache or from Redis', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { v: 1 })
    const first = await RawConnection.open(app)
    first.send(rawRequest('GET', `/docs/${key}`))
    await first.responses(1)
    const hits = app.answerCache.hits
    const connection = await RawConnection.open(app)
    const writes = [2, 3, 4].map((v) => rawRequest('PUT', `/docs/${key}/v`, json, String(v)) + rawRequest('GET', `/docs/${key}`) +
      rawRequest('GET', `/docs/${key}`))
    connection.send(writes.join('') + rawRequest('GET', `/docs/${key}/v`))
    const answers = await connection.responses(10)
    expect(answers.map((answer) => answer.body)).toEqual(
      ['2', '{"v":2}', '{"v":2}', '3', '{"v":3}', '{"v":3}', '4', '{"v":4}', '{"v":4}', '4'])
    expect(app.answerCache.hits).toBeGreaterThan(hits)
  })

  it('run nothing after an answer that closes the connection', async () => {
    const key = uniqueKey()
    const connection = await RawConnection.open(app)
    connection.send(rawRequest('PUT', `/docs/${key}`, json, '{"a":') + rawRequest('PUT', `/docs/${key}`, json, '{"b":2}') +
      rawRequest('GET', `/docs/${key}`))
    const answers = await connection.responses(3, 2000)
    expect(await connection.whenClosed()).toBeDefined()
    expect(answers.map((answer) => answer.status)).toEqual([400])
    expect(answers[0]!.headers['connection']).toBe('close')
    expect(await redis.exists(app.keyPrefix + key)).toBe(0)
    expect((await get(app, `/docs/${key}`)).statusCode).toBe(404)
  })

  it('stop after an answer given before its request\'s body arrived: nothing after it can be read', async () => {
    const key = uniqueKey()
    const connection = await RawConnection.open(app)
    connection.send(rawRequest('PUT', `/docs/${key}`, { 'content-type': 'text/plain', 'content-length': '2000' }) + '{"a":')
    const [refused] = await connection.responses(1)
    expect(refused?.status).toBe(415)
    expect(await connection.whenClosed(3000)).toBeDefined()
    expect(connection.received).toHaveLength(1)
  })

  it('are not all held when a client sends thousands at once: the socket is not read while many wait', async () => {
    const own = await buildTestApp()
    const key = uniqueKey()
    await put(own, `/docs/${key}`, 'x')
    const count = 20_000
    const connection = await RawConnection.open(own)
    // 80 bytes each: one 64 KiB read of the socket holds some 800 of them.
    connection.send(rawRequest('GET', `/docs/${key}`).repeat(count))
    const answers = await connection.responses(count, 60_000)
    expect(answers).toHaveLength(count)
    expect(answers.every((answer) => answer.status === 200 && answer.body === '"x"')).toBe(true)
    expect(own.connections.mostWaiting).toBeGreaterThanOrEqual(16)
    expect(own.connections.mostWaiting).toBeLessThan(2000)
  })
})
