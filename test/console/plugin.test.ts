import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { CONSOLE_DIST, CONSOLE_FILES } from '../../scripts/build-console.js'
import { ADMIN_TOKEN, bearer, buildGuardedApp } from '../access/guarded-app.js'
import { buildTestApp } from '../helpers/app.js'

const app = await buildGuardedApp()

const PAGES = [
  { url: '/console', file: 'index.html', type: 'text/html; charset=utf-8' },
  { url: '/console/console.js', file: 'console.js', type: 'text/javascript; charset=utf-8' },
  { url: '/console/console.css', file: 'console.css', type: 'text/css; charset=utf-8' }
]

describe('GET /console', () => {
  it.each(PAGES)('serves $url to anyone, as $type, with a validator and a strict policy', async ({ url, file, type }) => {
    const answer = await app.inject({ method: 'GET', url })
    expect(answer.statusCode).toBe(200)
    expect(answer.headers['content-type']).toBe(type)
    expect(answer.body).toBe(readFileSync(join(CONSOLE_DIST, file), 'utf8'))
    expect(answer.headers['cache-control']).toBe('no-cache')
    expect(answer.headers.etag).toMatch(/^"[\w-]+"$/)
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
    expect(answer.headers['referrer-policy']).toBe('no-referrer')
    const policy = String(answer.headers['content-security-policy'])
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("script-src 'self'")
    expect(policy).toContain("connect-src 'self'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/)

    const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': answer.headers.etag as string } })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
  })

  it('is the same page whatever the credentials, and sets nothing on the browser', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/console' })
    const admin = await app.inject({ method: 'GET', url: '/console', headers: bearer(ADMIN_TOKEN) })
    const refused = await app.inject({ method: 'GET', url: '/console', headers: bearer('jdt.unknown.token') })
    expect(admin.body).toBe(anonymous.body)
    expect(refused.statusCode).toBe(200)
    expect(refused.body).toBe(anonymous.body)
    for (const answer of [anonymous, admin, refused]) {
      expect(answer.headers['set-cookie']).toBeUndefined()
      expect(answer.body).not.toContain(ADMIN_TOKEN)
    }
  })

  it('runs no inline script and loads nothing from elsewhere', async () => {
    const page = (await app.inject({ method: 'GET', url: '/console' })).body
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(page).not.toMatch(/\son\w+=/i)
    for (const [, url] of page.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^(?:console\/[\w.]+|data:,)$/)
    const script = (await app.inject({ method: 'GET', url: '/console/console.js' })).body
    expect(script).not.toMatch(/https?:\/\/(?!www\.w3\.org)/)
    expect(script).not.toMatch(/\binnerHTML\b|\bdocument\.write\b|\beval\(/)
    expect(script).not.toMatch(/localStorage|console\.log/)
  })

  it('serves nothing else under /console', async () => {
    for (const url of ['/console/', '/console/index.html', '/console/.built-from', '/console/../package.json', '/console/console.js.map']) {
      const answer = await app.inject({ method: 'GET', url })
      expect(answer.statusCode, url).toBe(404)
    }
  })

  it('is served under BASE_PATH with the service, its files beside it', async () => {
    const based = await buildTestApp({ basePath: '/api' })
    expect((await based.inject({ method: 'GET', url: '/api/console' })).statusCode).toBe(200)
    expect((await based.inject({ method: 'GET', url: '/api/console/console.js' })).statusCode).toBe(200)
    expect((await based.inject({ method: 'GET', url: '/console' })).statusCode).toBe(404)
  })

  it('stays out of the OpenAPI description', async () => {
    const description = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> }
    expect(Object.keys(description.paths).filter((path) => path.startsWith('/console'))).toEqual([])
  })

  it('is within 150 kB gzipped in all', () => {
    const size = CONSOLE_FILES.reduce((sum, file) => sum + gzipSync(readFileSync(join(CONSOLE_DIST, file)), { level: 9 }).length, 0)
    expect(size).toBeLessThanOrEqual(150 * 1024)
  })
})
