import { describe, expect, it } from 'vitest'
import { parseRateLimit } from '../../src/access/rate-limit.js'
import { buildTestApp, put, uniqueKey } from '../helpers/app.js'
import { SseClient, until } from '../helpers/sse.js'
import { ADMIN_TOKEN, bearer, buildGuardedApp, tokenFor } from '../access/guarded-app.js'

const app = await buildGuardedApp()
const admin = bearer(ADMIN_TOKEN)

const streamUrl = (prefix: string, query = '') => `/docs?prefix=${encodeURIComponent(prefix)}${query}`

async function openPrefix (prefix: string, headers: Record<string, string> = {}, query = '') {
  const client = await SseClient.open(app, streamUrl(prefix, query), headers)
  await until(() => client.lastId !== undefined || client.ended, 10_000, () => 'the stream sent no id')
  return client
}

async function ticketFor (body: object, headers: Record<string, string>) {
  return await app.inject({ method: 'POST', url: '/streams/tickets', headers, payload: body })
}

/** Writes one document under each key, as the admin; then a last one the stream's reader may read, to know all arrived. */
async function writeAll (keys: readonly string[], last: string) {
  for (const key of keys) await put(app, `/docs/${encodeURIComponent(key)}`, { key }, admin)
  await put(app, `/docs/${encodeURIComponent(last)}`, { last: true }, admin)
}

const keysOf = (client: SseClient) => client.events.map((event) => JSON.parse(event.data).key as string)

/**
 * Waits for the events of every key expected, then answers the keys shown, sorted: on a cluster, writes of
 * keys in different slots have no order among their events, so the last write is no marker of the others.
 */
async function shownOnceAll (client: SseClient, expected: readonly string[]): Promise<string[]> {
  await until(() => expected.every((key) => keysOf(client).includes(key)), 10_000, () => `shown: ${JSON.stringify(keysOf(client))}`)
  return keysOf(client).sort()
}

describe('a prefix stream shows only the keys its credentials may read, as the listing does', () => {
  it('a token scoped to users:42: streaming users: sees users:42:* alone; a prefix no read scope meets is 403', async () => {
    const root = uniqueKey('u')
    const { token } = await tokenFor(app, [{ prefix: `${root}:42:`, rights: ['read'] }, { prefix: `${root}:7:`, rights: ['write'] }])
    const stream = await openPrefix(`${root}:`, bearer(token))
    expect(stream.status).toBe(200)
    await writeAll([`${root}:42:a`, `${root}:420:a`, `${root}:7:a`, `${root}:4`, `${root}x:42:a`], `${root}:42:b`)
    expect(await shownOnceAll(stream, [`${root}:42:a`, `${root}:42:b`])).toEqual([`${root}:42:a`, `${root}:42:b`])

    for (const prefix of [`${root}:420`, `${root}:7:`, 'other:']) {
      const refused = await SseClient.open(app, streamUrl(prefix), bearer(token))
      await refused.waitForEnd()
      expect(refused.status, prefix).toBe(403)
    }
    const anonymous = await SseClient.open(app, streamUrl(`${root}:42:`))
    await anonymous.waitForEnd()
    expect(anonymous.status).toBe(401)
  })

  it('ends with an end event once the token is revoked', async () => {
    const root = uniqueKey('v')
    const { id, token } = await tokenFor(app, [{ prefix: `${root}:`, rights: ['read'] }])
    const stream = await openPrefix(`${root}:`, bearer(token))
    expect((await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: admin })).statusCode).toBe(204)
    await stream.waitForEnd(5000)
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ reason: 'the token was revoked or expired' }) })
  })
})

describe('a stream ticket for a key prefix', () => {
  it('opens that prefix\'s stream alone, showing the keys its credentials could read, and ends with their token', async () => {
    const root = uniqueKey('t')
    const { id, token } = await tokenFor(app, [{ prefix: `${root}:42:`, rights: ['read'] }])
    const made = await ticketFor({ prefix: `${root}:` }, bearer(token))
    expect(made.statusCode, made.body).toBe(201)
    const { ticket } = made.json()
    const stream = await openPrefix(`${root}:`, {}, `&ticket=${ticket}`)
    expect(stream.status).toBe(200)
    await writeAll([`${root}:42:a`, `${root}:43:a`], `${root}:42:b`)
    expect(await shownOnceAll(stream, [`${root}:42:a`, `${root}:42:b`])).toEqual([`${root}:42:a`, `${root}:42:b`])

    // Another prefix (even a narrower one), a document, a listing without a stream, a write: refused.
    for (const url of [streamUrl(`${root}:42:`, `&ticket=${ticket}`), streamUrl(`${root}`, `&ticket=${ticket}`),
      `/docs/${encodeURIComponent(`${root}:42:a`)}?ticket=${ticket}`, `/docs?ticket=${ticket}`]) {
      const refused = await SseClient.open(app, url)
      await refused.waitForEnd()
      expect(refused.status, url).toBe(403)
    }
    expect((await app.inject({ method: 'GET', url: streamUrl(`${root}:`, `&ticket=${ticket}`) })).statusCode).toBe(401)
    expect((await app.inject({ method: 'POST', url: `/streams/tickets?ticket=${ticket}`, payload: { prefix: `${root}:` } })).statusCode).toBe(401)

    expect((await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: admin })).statusCode).toBe(204)
    await stream.waitForEnd(5000)
    expect(stream.events.at(-1)!.event).toBe('end')
    const again = await SseClient.open(app, streamUrl(`${root}:`, `&ticket=${ticket}`))
    await again.waitForEnd()
    expect(again.status).toBe(401)
  })

  it('is made only for a prefix the credentials may list, and names a key or a prefix, not both', async () => {
    const root = uniqueKey('m')
    const { token } = await tokenFor(app, [{ prefix: `${root}:42:`, rights: ['read'] }])
    expect((await ticketFor({ prefix: `${root}:420` }, bearer(token))).statusCode).toBe(403)
    expect((await ticketFor({ prefix: 'other:' }, bearer(token))).statusCode).toBe(403)
    expect((await ticketFor({ prefix: `${root}:` }, {})).statusCode).toBe(401)
    expect((await ticketFor({ prefix: `${root}:`, key: `${root}:42:a` }, bearer(token))).statusCode).toBe(400)
    expect((await ticketFor({}, bearer(token))).statusCode).toBe(400)
    expect((await ticketFor({ prefix: `${root}:` }, bearer(token))).statusCode).toBe(201)
    expect((await ticketFor({ prefix: '' }, admin)).statusCode).toBe(201)
  })
})

describe('rate limits', () => {
  it('count a prefix stream once, when it opens, whatever it carries', async () => {
    // Windows are aligned to the clock: an hour-long one, which the test is most unlikely to straddle (a minute-long one it may, when slow).
    const limited = await buildTestApp({ access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false }, rateLimit: parseRateLimit('2/hour')! })
    const root = uniqueKey('rl')
    const { token } = await tokenFor(limited, [{ prefix: `${root}:`, rights: ['read'] }])
    const stream = await SseClient.open(limited, streamUrl(`${root}:`), bearer(token))
    for (let step = 0; step < 5; step++) await put(limited, `/docs/${root}:${step}`, { step }, admin)
    await stream.waitForCount(5)
    expect((await limited.inject({ method: 'GET', url: streamUrl(`${root}:`), headers: bearer(token) })).statusCode).toBe(200)
    expect((await limited.inject({ method: 'GET', url: streamUrl(`${root}:`), headers: bearer(token) })).statusCode).toBe(429)
  })
})
