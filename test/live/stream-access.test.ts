import { Writable } from 'node:stream'
import { SignJWT } from 'jose'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { buildApp, logRedaction } from '../../src/app.js'
import { put, testConfig, uniqueKey } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { SseClient } from '../helpers/sse.js'
import { inOneWindow } from '../helpers/window.js'
import { MAX_TICKETS_PER_WINDOW } from '../../src/access/tickets.js'
import { ADMIN_TOKEN, bearer, buildGuardedApp, tokenFor } from '../access/guarded-app.js'

const app = await buildGuardedApp()
const admin = bearer(ADMIN_TOKEN)

async function ticketFor (key: string, headers: Record<string, string>) {
  return await app.inject({ method: 'POST', url: '/streams/tickets', headers, payload: { key } })
}

describe('a live stream needs the read right on its document', () => {
  it('with the Authorization header, as a read does; no stream outside the scopes', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'mine:', rights: ['read'] }])
    const mine = `mine:${uniqueKey()}`
    await put(app, `/docs/${mine}`, { a: 1 }, admin)
    const allowed = await SseClient.open(app, `/docs/${mine}/a`, bearer(token))
    await allowed.waitForCount(1)
    expect(allowed.events[0]!.event).toBe('put')
    for (const url of [`/docs/other:${uniqueKey()}`, `/docs/${encodeURIComponent('mine')}`]) {
      const refused = await SseClient.open(app, url, bearer(token))
      await refused.waitForEnd()
      expect(refused.status).toBe(403)
    }
    const anonymous = await SseClient.open(app, `/docs/${mine}`)
    await anonymous.waitForEnd()
    expect(anonymous.status).toBe(401)
  })
})

describe('a stream ticket', () => {
  it(`is made at most ${MAX_TICKETS_PER_WINDOW} times per window by one credential, whatever RATE_LIMIT says: 429 with Retry-After past them`, async () => {
    await inOneWindow(Math.ceil(app.access.tickets.ttlMs / 1000) * 1000, async () => {
      const [first, second] = await Promise.all([1, 2].map(() => tokenFor(app, [{ prefix: 'quota:', rights: ['read'] }])))
      const key = `quota:${uniqueKey()}`
      for (let made = 0; made < MAX_TICKETS_PER_WINDOW; made += 50) {
        const answers = await Promise.all(Array.from({ length: 50 }, () => ticketFor(key, bearer(first!.token))))
        expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 201))
      }
      const refused = await ticketFor(key, bearer(first!.token))
      expect(refused.statusCode).toBe(429)
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
      expect(refused.json().code).toBe('DOCS_ERR_RATE_LIMITED')
      expect((await ticketFor(key, bearer(second!.token))).statusCode, 'another credential has its own quota').toBe(201)
    })
  })

  it('opens streams of its one document for an EventSource, and nothing else', async () => {
    const created = await tokenFor(app, [{ prefix: 'tk:', rights: ['read', 'write'] }])
    const key = `tk:${uniqueKey()}`
    await put(app, `/docs/${key}`, { v: 1 }, admin)
    const response = await ticketFor(key, bearer(created.token))
    expect(response.statusCode, response.body).toBe(201)
    expect(response.headers['cache-control']).toBe('no-store')
    const { ticket, expiresAt } = response.json()
    expect(ticket).toMatch(/^jst\./)
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now())

    const stream = await SseClient.open(app, `/docs/${encodeURIComponent(key)}?ticket=${ticket}`)
    await stream.waitForCount(1)
    expect(JSON.parse(stream.events[0]!.data).value).toEqual({ v: 1 })
    const reconnect = await SseClient.open(app, `/docs/${encodeURIComponent(key)}/v?ticket=${ticket}`)
    await reconnect.waitForCount(1)

    // Another key, even one it starts, a read without a stream, a write, a listing: refused.
    for (const url of [`/docs/${encodeURIComponent(key)}x?ticket=${ticket}`, `/docs/tk:${uniqueKey()}?ticket=${ticket}`,
      `/meta/${encodeURIComponent(key)}?ticket=${ticket}`, `/ttl/${encodeURIComponent(key)}?ticket=${ticket}`]) {
      const refused = await SseClient.open(app, url)
      await refused.waitForEnd()
      expect(refused.status).toBe(403)
    }
    expect((await app.inject({ method: 'GET', url: `/docs/${key}?ticket=${ticket}` })).statusCode).toBe(401)
    expect((await app.inject({ method: 'PUT', url: `/docs/${key}?ticket=${ticket}`, payload: {} })).statusCode).toBe(401)
    expect((await app.inject({ method: 'GET', url: `/docs?prefix=tk:&ticket=${ticket}`, headers: { accept: 'text/event-stream' } })).statusCode).toBe(403)
    // A ticket does not make tickets.
    expect((await app.inject({ method: 'POST', url: `/streams/tickets?ticket=${ticket}`, payload: { key } })).statusCode).toBe(401)
    const forged = await SseClient.open(app, `/docs/${encodeURIComponent(key)}?ticket=${ticket.slice(0, -2)}AA`)
    await forged.waitForEnd()
    expect(forged.status).toBe(401)
  })

  it('is made only for a document the credentials may read', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'tk:', rights: ['read'] }])
    expect((await ticketFor('other:1', bearer(token))).statusCode).toBe(403)
    expect((await ticketFor('tk:1', {})).statusCode).toBe(401)
    expect((await ticketFor('', bearer(token))).statusCode).toBe(400)
  })

  it('is never written to the logs', async () => {
    const lines: string[] = []
    const output = new Writable({ write (chunk, _encoding, done) { lines.push(chunk.toString()); done() } })
    const config = testConfig({ logRequests: true, logLevel: 'trace', access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false } })
    const logged = await buildApp(config, { logger: pino({ level: 'trace', redact: logRedaction }, output) })
    whenDone(() => logged.close())
    const response = await logged.inject({ method: 'POST', url: '/streams/tickets', headers: admin, payload: { key: 'k' } })
    const { ticket } = response.json()
    const stream = await SseClient.open(logged, `/docs/k?ticket=${ticket}`)
    await stream.waitForCount(1)
    await logged.inject({ method: 'GET', url: `/nowhere?ticket=${ticket}` })
    await logged.inject({ method: 'GET', url: `/docs/k?ticket=${ticket}` })
    expect(lines.join('')).toContain('ticket=[redacted]')
    expect(lines.join('')).not.toContain(ticket.split('.')[2])
  })
})

describe('a stream ends when its credentials do', () => {
  it('with an end event once the token is revoked, whether it came by header or by ticket', async () => {
    const { id, token } = await tokenFor(app, [{ prefix: 'rv:', rights: ['read'] }])
    const key = `rv:${uniqueKey()}`
    const { ticket } = (await ticketFor(key, bearer(token))).json()
    const byHeader = await SseClient.open(app, `/docs/${key}`, bearer(token))
    const byTicket = await SseClient.open(app, `/docs/${key}?ticket=${ticket}`)
    await byHeader.waitForCount(1)
    await byTicket.waitForCount(1)
    expect((await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: admin })).statusCode).toBe(204)
    for (const stream of [byHeader, byTicket]) {
      await stream.waitForEnd(5000)
      expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ reason: 'the token was revoked or expired' }) })
    }
    const again = await SseClient.open(app, `/docs/${key}?ticket=${ticket}`)
    await again.waitForEnd()
    expect(again.status).toBe(401)
  })

  it('when the token expires', async () => {
    const { token } = await tokenFor(app, [{ prefix: 'ex:', rights: ['read'] }], 1.5)
    const stream = await SseClient.open(app, `/docs/ex:${uniqueKey()}`, bearer(token))
    await stream.waitForCount(1)
    await stream.waitForEnd(6000)
    expect(stream.events.at(-1)!.event).toBe('end')
  })
})

describe('a stream opened with a JWT', () => {
  it('ends when the JWT expires, as does one opened with a ticket it asked for', async () => {
    const secret = 'live-stream-jwt-secret-0123456789abcdef'
    const withJwt = await buildGuardedApp({
      jwt: { key: { kind: 'secret', secret }, issuer: 'https://id.example.test', audience: 'jsondocs', scopesTemplate: [{ prefix: 'j:{sub}:', rights: ['read'] }] }
    })
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('1').setIssuer('https://id.example.test')
      .setAudience('jsondocs').setExpirationTime(Math.floor(Date.now() / 1000) + 3).sign(new TextEncoder().encode(secret))
    const key = `j:1:${uniqueKey()}`
    const ticket = await withJwt.inject({ method: 'POST', url: '/streams/tickets', headers: bearer(jwt), payload: { key } })
    expect(ticket.statusCode).toBe(201)
    expect(Date.parse(ticket.json().expiresAt)).toBeLessThanOrEqual(Date.now() + 3000)
    const streams = [
      await SseClient.open(withJwt, `/docs/${key}`, bearer(jwt)),
      await SseClient.open(withJwt, `/docs/${key}?ticket=${ticket.json().ticket}`)
    ]
    for (const stream of streams) {
      await stream.waitForCount(1)
      await stream.waitForEnd(8000)
      expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ reason: 'the credentials expired' }) })
    }
  })
})

describe('rate limits', () => {
  it('count a stream once, when it opens, whatever it carries', async () => {
    const limited = await buildTestAppWithLimit()
    const { token } = await tokenFor(limited, [{ prefix: 'rl:', rights: ['read'] }])
    const key = `rl:${uniqueKey()}`
    const stream = await SseClient.open(limited, `/docs/${key}`, bearer(token))
    await stream.waitForCount(1)
    for (let step = 0; step < 5; step++) await put(limited, `/docs/${key}`, { step }, admin)
    await stream.waitForCount(6)
    expect((await limited.inject({ method: 'GET', url: `/docs/${key}`, headers: bearer(token) })).statusCode).toBe(200)
    expect((await limited.inject({ method: 'GET', url: `/docs/${key}`, headers: bearer(token) })).statusCode).toBe(429)
  })
})

async function buildTestAppWithLimit () {
  const { buildTestApp } = await import('../helpers/app.js')
  const { parseRateLimit } = await import('../../src/access/rate-limit.js')
  return await buildTestApp({
    access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false },
    // Windows are aligned to the clock: an hour-long one, which the test is most unlikely to straddle (a minute-long one it may, when slow).
    rateLimit: parseRateLimit('2/hour')!
  })
}
