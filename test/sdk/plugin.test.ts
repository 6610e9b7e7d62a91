import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { clientBundle } from '../../scripts/build-client.js'
import { ADMIN_TOKEN } from '../access/guarded-app.js'
import { buildTestApp } from '../helpers/app.js'

const ORIGIN = 'http://localhost:5173'
const app = await buildTestApp({ corsOrigins: [ORIGIN], access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false } })

describe('GET /sdk/jsondocs.js', () => {
  it('serves the client to anyone, as JavaScript, with the CORS headers and a validator', async () => {
    const answer = await app.inject({ method: 'GET', url: '/sdk/jsondocs.js', headers: { origin: ORIGIN } })
    expect(answer.statusCode).toBe(200)
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(answer.headers['cache-control']).toBe('no-cache')
    expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN)
    expect(answer.headers.etag).toMatch(/^"[\w-]+"$/)
    expect(answer.body).toBe(readFileSync(clientBundle, 'utf8'))
    expect(answer.body).toMatch(/\/\/# sourceMappingURL=jsondocs\.js\.map\s*$/)

    const again = await app.inject({ method: 'GET', url: '/sdk/jsondocs.js', headers: { 'if-none-match': answer.headers.etag as string } })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')

    const map = await app.inject({ method: 'GET', url: '/sdk/jsondocs.js.map' })
    expect(map.statusCode).toBe(200)
    expect(map.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(map.json()).toMatchObject({ sources: expect.arrayContaining(['../src/document.ts']), sourcesContent: expect.any(Array) })
  })

  it('is one module of its own, within 12 kB gzipped', () => {
    const text = readFileSync(clientBundle, 'utf8')
    expect(text).not.toMatch(/\bimport\s*[{*"'(]|\brequire\(/)
    expect(text).toMatch(/\bexport\s*\{/)
    expect(gzipSync(text, { level: 9 }).length).toBeLessThanOrEqual(12 * 1024)
  })

  it('runs in Node as built', async () => {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    const { connect, JsondocsError } = await import(pathToFileURL(clientBundle).href) as typeof import('../../client/src/index.js')
    const doc = connect({ baseUrl, token: ADMIN_TOKEN }).doc('bundle:1')
    const { etag } = await doc.put({ built: true })
    expect(await doc.get()).toEqual({ value: { built: true }, etag })
    await expect(connect({ baseUrl }).doc('bundle:1').get()).rejects.toBeInstanceOf(JsondocsError)
  })
})
