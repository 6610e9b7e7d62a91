import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, overSocket, put, uniqueKey, type SocketResponse } from '../helpers/app.js'

const app = await buildTestApp()

/** Reads a URL twice over a socket: the route answers the first read, the early answer the second. */
async function routeThenEarly (target: FastifyInstance, url: string): Promise<[SocketResponse, SocketResponse]> {
  const byRoute = await overSocket(target, 'GET', url)
  const answered = target.earlyAnswers.answered
  const early = await overSocket(target, 'GET', url)
  expect(target.earlyAnswers.answered).toBe(answered + 1)
  return [byRoute, early]
}

/** Headers that may differ between two answers a moment apart. */
function lasting ({ date: _date, 'expires-in': _expiresIn, ...headers }: Record<string, string>) {
  return headers
}

describe('early answers: remembered reads served before fastify meets them', () => {
  it('are the response the route sends: status, body and headers', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}?ttl=100`, { name: 'é\u{1F600}', n: [1, 2.50] })
    for (const url of [`/docs/${key}`, `/docs/${key}/name`, `/docs/${key}?jsonpath=$.n[*]`]) {
      const [byRoute, early] = await routeThenEarly(app, url)
      expect(byRoute.statusCode).toBe(200)
      expect(early.statusCode).toBe(200)
      expect(early.body).toBe(byRoute.body)
      expect(lasting(early.headers)).toEqual(lasting(byRoute.headers))
      expect(Number(early.headers['content-length'])).toBe(Buffer.byteLength(early.body))
      expect(Number(early.headers['expires-in'])).toBeGreaterThanOrEqual(99)
      expect(Number(early.headers['expires-in'])).toBeLessThanOrEqual(Number(byRoute.headers['expires-in']))
    }
  })

  it('leave conditional reads, HEAD and injected requests to fastify', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const [byRoute] = await routeThenEarly(app, `/docs/${key}`)
    const answered = app.earlyAnswers.answered

    const notModified = await overSocket(app, 'GET', `/docs/${key}`, { 'if-none-match': byRoute.headers['etag']! })
    expect(notModified.statusCode).toBe(304)
    const changed = await overSocket(app, 'GET', `/docs/${key}`, { 'if-none-match': '"1"' })
    expect(changed.statusCode).toBe(200)
    expect(changed.body).toBe('{"a":1}')
    const head = await overSocket(app, 'HEAD', `/docs/${key}`)
    expect(head.statusCode).toBe(200)
    expect(head.headers['etag']).toBe(byRoute.headers['etag'])
    expect(head.body).toBe('')
    const injected = await app.inject({ method: 'GET', url: `/docs/${key}` })
    expect(injected.body).toBe('{"a":1}')

    expect(app.earlyAnswers.answered).toBe(answered)
  })

  it('never answer what the route would refuse or has not answered', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    await routeThenEarly(app, `/docs/${key}`)
    const answered = app.earlyAnswers.answered
    expect((await overSocket(app, 'GET', `/docs/${key}?jsonpath=$..[`)).statusCode).toBe(400)
    expect((await overSocket(app, 'GET', `/docs/${key}/missing`)).statusCode).toBe(404)
    expect((await overSocket(app, 'GET', `/docs/${key}/a?pointer=/a`)).statusCode).toBe(400)
    expect(app.earlyAnswers.answered).toBe(answered)
  })

  it('are off while every request is logged (LOG_REQUESTS)', async () => {
    const logged = await buildTestApp({ logRequests: true })
    const key = uniqueKey()
    await put(logged, `/docs/${key}`, { a: 1 })
    const recalled = logged.documents.recalledCount()
    for (let read = 0; read < 3; read++) expect((await overSocket(logged, 'GET', `/docs/${key}`)).body).toBe('{"a":1}')
    expect(logged.documents.recalledCount()).toBe(recalled + 2)
    expect(logged.earlyAnswers.answered).toBe(0)
  })
})
