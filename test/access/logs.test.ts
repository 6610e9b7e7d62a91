import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { buildApp, logRedaction } from '../../src/app.js'
import { testConfig } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { ADMIN_TOKEN, bearer } from './guarded-app.js'

/** An app logging every request at trace level, with the redaction the service uses, into memory. */
async function loggingApp () {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(chunk.toString()); done() } })
  const config = testConfig({ logRequests: true, logLevel: 'trace', access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false } })
  const app = await buildApp(config, { logger: pino({ level: 'trace', redact: logRedaction }, stream) })
  whenDone(() => app.close())
  return { app, output: () => lines.join('') }
}

describe('credentials in logs', () => {
  it('never appear: not the admin token, a bearer token, nor a refused one', async () => {
    const { app, output } = await loggingApp()
    const created = await app.inject({
      method: 'POST', url: '/tokens', headers: bearer(ADMIN_TOKEN), payload: { scopes: [{ prefix: 'a:', rights: ['read'] }] }
    })
    const { token } = created.json()
    const refused = 'jdt.0123456789abcdef0123456789abcdef.refusedrefusedrefusedrefusedrefusedrefused0'
    expect((await app.inject({ method: 'GET', url: '/docs/a:1', headers: bearer(token) })).statusCode).toBe(404)
    expect((await app.inject({ method: 'GET', url: '/docs/b:1', headers: bearer(token) })).statusCode).toBe(403)
    expect((await app.inject({ method: 'GET', url: '/docs/a:1', headers: bearer(refused) })).statusCode).toBe(401)
    // Any log line that carries the request's headers has the credentials censored.
    app.log.info({ headers: { authorization: `Bearer ${token}` } }, 'headers')
    expect(output()).toContain('incoming request')
    expect(output()).toContain('[redacted]')
    for (const secret of [ADMIN_TOKEN, token, token.split('.')[2], refused]) expect(output()).not.toContain(secret)
  })

  it('nor in problem bodies', async () => {
    const { app } = await loggingApp()
    const refused = 'jdt.0123456789abcdef0123456789abcdef.refusedrefusedrefusedrefusedrefusedrefused0'
    for (const sent of [refused, 'eyJhbGciOiJub25lIn0.eyJzdWIiOiI0MiJ9.', ADMIN_TOKEN + 'x']) {
      const response = await app.inject({ method: 'GET', url: '/docs/a:1', headers: bearer(sent) })
      expect(response.statusCode).toBe(401)
      expect(response.body).not.toContain(sent)
    }
  })
})
