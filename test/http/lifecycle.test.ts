import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { beforeEach, describe, expect, it } from 'vitest'
import { BadRequestError } from '../../src/errors.js'
import { buildTestApp, overSocket, put, uniqueKey, type SocketResponse } from '../helpers/app.js'

const HOOKS = ['onRequest', 'preValidation', 'preHandler', 'onSend', 'onResponse'] as const
type Hook = typeof HOOKS[number]

/** What a global hook saw of a request: which hook, the request, the answer's status, the answer cache's hits. */
interface Sighting { hook: Hook, method: string, url: string, status: number, hits: number }

const seen: Sighting[] = []

/**
 * A cross-cutting plugin as access checks, rate limits and metrics will be: a hook at every step,
 * recording what it sees; `x-refuse: <hook>` makes that hook refuse the request, as an access check would.
 */
const observer = fp(async function observer (app: FastifyInstance) {
  const see = (hook: Hook, request: FastifyRequest, reply: FastifyReply) => {
    seen.push({ hook, method: request.method, url: request.url, status: reply.statusCode, hits: app.answerCache.hits })
    if (request.headers['x-refuse'] === hook) throw new BadRequestError(`refused by the ${hook} hook`)
  }
  for (const hook of ['onRequest', 'preValidation', 'preHandler', 'onResponse'] as const) {
    app.addHook(hook, async (request: FastifyRequest, reply: FastifyReply) => see(hook, request, reply))
  }
  app.addHook('onSend', async (request, reply, payload) => {
    see('onSend', request, reply)
    return payload
  })
})

const app = await buildTestApp({ cacheMaxEntries: 1000 }, { crossCutting: [observer] })

type Send = (method: 'GET' | 'HEAD', url: string, headers?: Record<string, string>) => Promise<SocketResponse>

const transports: Array<[string, Send]> = [
  ['over a socket', (method, url, headers) => overSocket(app, method, url, headers)],
  ['through inject', async (method, url, headers = {}) => {
    const response = await app.inject({ method, url, headers })
    return { statusCode: response.statusCode, headers: response.headers as Record<string, string>, body: response.body, json: response.json }
  }]
]

/** Sends a request and answers it with what every global hook saw of it, once the last hook has run. */
async function sendSeen (send: Send, method: 'GET' | 'HEAD', url: string, headers: Record<string, string> = {}) {
  seen.length = 0
  const response = await send(method, url, headers)
  // onResponse runs once the answer has left, which the client may see first.
  for (let turn = 0; turn < 1000 && !seen.some((sighting) => sighting.hook === 'onResponse'); turn++) {
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { response, sightings: [...seen] }
}

describe.each(transports)('every global hook sees every read, cached or not, %s', (_transport, send) => {
  let key: string
  let etag: string

  beforeEach(async () => {
    key = uniqueKey()
    const written = await put(app, `/docs/${key}`, { a: { b: 1 } })
    etag = String(written.headers['etag'])
  })

  /** The request went through every hook, in order, each once; the cache answered it (or not) after preHandler. */
  function expectLifecycle (sightings: Sighting[], method: string, url: string, status: number, cached: boolean) {
    expect(sightings.map((sighting) => sighting.hook)).toEqual([...HOOKS])
    for (const sighting of sightings) expect(sighting).toMatchObject({ method, url })
    const [onRequest, preValidation, preHandler, onSend, onResponse] = sightings as [Sighting, Sighting, Sighting, Sighting, Sighting]
    expect(preValidation.hits).toBe(onRequest.hits)
    expect(preHandler.hits).toBe(onRequest.hits)
    expect(onSend.hits).toBe(onRequest.hits + (cached ? 1 : 0))
    expect(onResponse.hits).toBe(onSend.hits)
    expect(onSend.status).toBe(status)
    expect(onResponse.status).toBe(status)
  }

  it('GET and HEAD, read from Redis and then from the answer cache', async () => {
    for (const url of [`/docs/${key}`, `/docs/${key}/a/b`, `/docs/${key}?pointer=/a`]) {
      const first = await sendSeen(send, 'GET', url)
      expect(first.response.statusCode).toBe(200)
      expectLifecycle(first.sightings, 'GET', url, 200, false)
      const again = await sendSeen(send, 'GET', url)
      expect(again.response.body).toBe(first.response.body)
      expectLifecycle(again.sightings, 'GET', url, 200, true)
      const head = await sendSeen(send, 'HEAD', url)
      expect(head.response.headers['etag']).toBe(etag)
      expectLifecycle(head.sightings, 'HEAD', url, 200, true)
    }
  })

  it('a 304 answered from the answer cache', async () => {
    const url = `/docs/${key}`
    await sendSeen(send, 'GET', url)
    for (const method of ['GET', 'HEAD'] as const) {
      const notModified = await sendSeen(send, method, url, { 'if-none-match': etag })
      expect(notModified.response.statusCode).toBe(304)
      expectLifecycle(notModified.sightings, method, url, 304, true)
    }
  })

  it('reads the handler answers with an error', async () => {
    const url = `/docs/${key}/missing`
    for (const method of ['GET', 'HEAD'] as const) {
      const missing = await sendSeen(send, method, url)
      expect(missing.response.statusCode).toBe(404)
      expectLifecycle(missing.sightings, method, url, 404, false)
    }
  })
})

describe.each(transports)('the answer cache is consulted after every global hook, %s', (_transport, send) => {
  it.each(['onRequest', 'preValidation', 'preHandler'] as const)('a hook on %s refuses a read the cache holds', async (hook) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const url = `/docs/${key}`
    expect((await send('GET', url)).statusCode).toBe(200)
    const hits = app.answerCache.hits
    expect((await send('GET', url)).statusCode).toBe(200)
    expect(app.answerCache.hits).toBe(hits + 1)

    for (const method of ['GET', 'HEAD'] as const) {
      const refused = await send(method, url, { 'x-refuse': hook })
      expect(refused.statusCode).toBe(400)
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
      if (method === 'GET') expect(refused.json()).toMatchObject({ code: 'DOCS_ERR_BAD_REQUEST', detail: `refused by the ${hook} hook` })
    }
    expect(app.answerCache.hits).toBe(hits + 1)
  })
})

describe('the cross-cutting tier', () => {
  it('refuses an encapsulated plugin, whose hooks would never meet a route', async () => {
    const encapsulated = async function encapsulated () {}
    await expect(buildTestApp({}, { crossCutting: [encapsulated] })).rejects.toThrow(/encapsulated|fastify-plugin/)
  })
})
