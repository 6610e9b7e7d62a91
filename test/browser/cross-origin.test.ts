/// <reference lib="dom" />
import { build } from 'esbuild'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { launchBrowser, pageOriginPort, signIn, usersJwt } from './browser.js'

const SECRET = 'browser-test-jwt-secret-0123456789abcdef'

/** The page's script, bundled once with the generated client. */
async function bundle (): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./page.ts', import.meta.url))], bundle: true, write: false, format: 'iife', target: 'es2022'
  })
  return result.outputFiles[0]!.text
}

describe('a browser app on another origin', () => {
  it('creates, reads, patches and deletes its own document with the generated client and a JWT, and is refused outside its prefix', async () => {
    // The page is served from localhost:<port>; the service listens on 127.0.0.1: two origins.
    const pagePort = await pageOriginPort()
    const pageOrigin = `http://localhost:${pagePort}`
    const app = await buildTestApp({
      corsOrigins: [pageOrigin],
      access: {
        anonymousScopes: [],
        open: false,
        jwt: usersJwt(SECRET)
      }
    })
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    const jwt = await signIn(SECRET, '42')
    const served = await servePageOn(pagePort, { baseUrl, jwt, key: 'users:42:notes', outside: 'users:43:notes' })
    expect(served).toBe(pageOrigin)

    const browser = await launchBrowser()
    const page = await browser.newPage()
    await page.goto(served, { timeout: 20_000 })
    await page.waitForFunction(() => document.getElementById('result')!.textContent !== '', { timeout: 20_000 })
    const outcome = JSON.parse(await page.$eval('#result', (element) => element.textContent!))
    expect(outcome).toMatchObject({
      created: 201,
      location: '/docs/users%3A42%3Anotes',
      read: { name: 'Ann', tags: ['a'] },
      patched: [200, { name: 'Bo', tags: ['a'] }],
      removed: 204,
      gone: 404,
      refused: [403, 'DOCS_ERR_FORBIDDEN']
    })
    // Exposed headers are readable by the page.
    expect(outcome.etag).toMatch(/^"\d+"$/)
    expect(outcome.requestId).toMatch(/^[0-9a-f-]{36}$/)
  }, 90_000)
})

/** A second server, on another port of localhost and so another origin, serving the test page. */
async function servePageOn (port: number, settings: object): Promise<string> {
  const script = await bundle()
  const html = `<!doctype html><meta charset="utf-8"><title>jsondocs from another origin</title><pre id="result"></pre>` +
    `<script>window.JSONDOCS = ${JSON.stringify(settings)}</script><script src="/page.js"></script>`
  const server = createServer((request, response) => {
    if (request.url === '/page.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script)
    else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  whenDone(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://localhost:${port}`
}
