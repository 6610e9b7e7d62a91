import { createServer } from 'node:net'
import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { buildTestApp, get, testConfig, uniqueKey } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { parseMetrics } from '../helpers/prometheus.js'

const TOKEN = 'test-admin-token-0123456789abcdef'
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const app = await buildTestApp({ adminToken: TOKEN })
/** Access enforced without an admin token: the metrics are scraped on METRICS_PORT alone. */
const listening = await buildTestApp({
  metricsListener: { host: '127.0.0.1', port: 0 }, access: { anonymousScopes: [{ prefix: '', rights: ['read'] }], open: false }
})
const base = `http://127.0.0.1:${listening.metrics!.listenerAddress!.port}`

function expectProblem (response: Awaited<ReturnType<typeof get>>, status: number, code: string) {
  expect(response.statusCode).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(response.json()).toMatchObject({ status, code })
}

describe('GET /metrics on the service\'s port', () => {
  it('is an unknown route (404 problem) when access is enforced without an admin token, whatever the credentials', async () => {
    const app = await buildTestApp({ access: { anonymousScopes: [{ prefix: '', rights: ['read'] }], open: false } })
    expect(app.metrics).toBeUndefined()
    for (const headers of [{}, bearer(TOKEN)]) {
      expectProblem(await get(app, '/metrics', headers), 404, 'DOCS_ERR_ROUTE_NOT_FOUND')
      const head = await app.inject({ method: 'HEAD', url: '/metrics', headers })
      expect(head.statusCode).toBe(404)
      expect(head.headers['content-type']).toMatch(/^application\/problem\+json/)
    }
  })

  it('answers the admin token with the Prometheus text format, never cached', async () => {
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER   ${TOKEN}  `]) {
      const response = await get(app, '/metrics', { authorization })
      expect(response.statusCode).toBe(200)
      expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8')
      expect(response.headers['cache-control']).toBe('no-store')
      expect(parseMetrics(response.body).length).toBeGreaterThan(20)
    }
    const head = await app.inject({ method: 'HEAD', url: '/metrics', headers: bearer(TOKEN) })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
  })

  it.each([
    ['no Authorization', {}],
    ['another token', bearer('test-admin-token-0123456789abcdeX')],
    ['the token with a character less', bearer(TOKEN.slice(0, -1))],
    ['the token with a character more', bearer(TOKEN + 'f')],
    ['the token twice', bearer(TOKEN + TOKEN)],
    ['the token in another scheme', { authorization: `Basic ${TOKEN}` }],
    ['the token without a scheme', { authorization: TOKEN }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
    ['60 KiB of token', bearer('x'.repeat(60_000))]
  ])('refuses %s: 401 problem with WWW-Authenticate: Bearer, and the token nowhere', async (_name, headers) => {
    const response = await get(app, '/metrics', headers)
    expectProblem(response, 401, 'DOCS_ERR_UNAUTHORIZED')
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="jsondocs"(, error="invalid_token")?$/)
    expect(response.body).not.toContain(TOKEN.slice(0, 16))
    expect(JSON.stringify(response.headers)).not.toContain(TOKEN.slice(0, 16))
  })

  it('says invalid_token when a bearer token was sent, and only the challenge when none was (RFC 6750)', async () => {
    expect((await get(app, '/metrics', bearer('not-the-admin-token'))).headers['www-authenticate'])
      .toBe('Bearer realm="jsondocs", error="invalid_token"')
    expect((await get(app, '/metrics')).headers['www-authenticate']).toBe('Bearer realm="jsondocs"')
  })

  it('other methods are 405 with Allow, like any route', async () => {
    const response = await app.inject({ method: 'POST', url: '/metrics', headers: bearer(TOKEN) })
    expectProblem(response, 405, 'DOCS_ERR_METHOD_NOT_ALLOWED')
    expect(response.headers.allow).toBe('GET, HEAD')
  })

  it('never logs the token, right or wrong, even with every request logged', async () => {
    const text: string[] = []
    const stream = new Writable({ write (chunk: Buffer, _encoding, callback) { text.push(chunk.toString()); callback() } })
    const app = await buildApp(testConfig({ adminToken: TOKEN, logRequests: true }), { logger: pino({ level: 'trace' }, stream) })
    whenDone(() => app.close())
    expect((await get(app, '/metrics', bearer(TOKEN))).statusCode).toBe(200)
    expect((await get(app, '/metrics', bearer(TOKEN.slice(0, -1) + 'X'))).statusCode).toBe(401)
    expect(text.join('').length).toBeGreaterThan(0)
    expect(text.join('')).not.toContain(TOKEN.slice(0, 16))
  })
})

describe('METRICS_PORT: /metrics alone on a second listener, without a token', () => {

  it('serves the same metrics to anyone who reaches it; HEAD too', async () => {
    await get(listening, `/docs/${uniqueKey()}`)
    const response = await fetch(`${base}/metrics?name[]=ignored`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const samples = parseMetrics(await response.text())
    expect(samples.some((sample) => sample.name === 'jsondocs_http_request_duration_seconds_count')).toBe(true)
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  it('answers anything else with a problem: 404 for another path, 405 for another method', async () => {
    for (const path of ['/', '/docs/a', '/metricsx', '/metrics/']) {
      const response = await fetch(`${base}${path}`)
      expect(response.status).toBe(404)
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(await response.json()).toMatchObject({ code: 'DOCS_ERR_ROUTE_NOT_FOUND' })
    }
    const post = await fetch(`${base}/metrics`, { method: 'POST', body: 'x' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
    expect(await post.json()).toMatchObject({ code: 'DOCS_ERR_METHOD_NOT_ALLOWED' })
  })

  it('leaves the service\'s port without /metrics when access is enforced without an admin token', async () => {
    expectProblem(await get(listening, '/metrics'), 404, 'DOCS_ERR_ROUTE_NOT_FOUND')
  })

  it('stops listening when the app closes', async () => {
    const app = await buildApp(testConfig({ metricsListener: { host: '127.0.0.1', port: 0 } }))
    const { port } = app.metrics!.listenerAddress!
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200)
    await app.close()
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow()
  })

  it('fails the start when its port is taken', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    whenDone(() => new Promise((resolve) => taken.close(resolve)))
    const { port } = taken.address() as { port: number }
    await expect(buildApp(testConfig({ metricsListener: { host: '127.0.0.1', port } }))).rejects.toThrow(/EADDRINUSE/)
  })
})
