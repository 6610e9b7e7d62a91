/// <reference lib="dom" />
import { createServer } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Page } from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import { buildTestApp, operate, put } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { launchBrowser, pageOriginPort, signIn, usersJwt } from './browser.js'

const SECRET = 'browser-live-test-jwt-secret-0123456789ab'

interface Logged { type: string, id?: string, data?: { value?: unknown, patch?: unknown[], etag?: string } }
interface PageState { log: Logged[], doc: unknown, etag: string | undefined }

/**
 * The page: asks for a stream ticket with its JWT, opens an EventSource with it, and keeps the document by
 * applying what arrives (its own RFC 6902 code), logging every event and every open and error.
 */
const PAGE_SCRIPT = `
const state = { log: [], doc: undefined, etag: undefined }
window.liveState = () => JSON.parse(JSON.stringify(state))
function applyPatch (doc, patch) {
  for (const { op, path, value } of patch) {
    if (path === '') { doc = structuredClone(value); continue }
    const tokens = path.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
    let parent = doc
    for (const token of tokens.slice(0, -1)) parent = parent[token]
    const last = tokens[tokens.length - 1]
    if (Array.isArray(parent)) {
      if (op === 'add') parent.splice(last === '-' ? parent.length : Number(last), 0, structuredClone(value))
      else if (op === 'replace') parent[Number(last)] = structuredClone(value)
      else parent.splice(Number(last), 1)
    } else if (op === 'remove') delete parent[last]
    else parent[last] = structuredClone(value)
  }
  return doc
}
async function main () {
  const { baseUrl, jwt, key } = window.LIVE
  const answer = await fetch(baseUrl + '/streams/tickets', {
    method: 'POST', headers: { authorization: 'Bearer ' + jwt, 'content-type': 'application/json' }, body: JSON.stringify({ key })
  })
  const { ticket } = await answer.json()
  const source = new EventSource(baseUrl + '/docs/' + encodeURIComponent(key) + '?ticket=' + ticket)
  source.onopen = () => state.log.push({ type: 'open' })
  source.onerror = () => state.log.push({ type: 'error' })
  for (const type of ['put', 'patch', 'delete', 'reset', 'end']) {
    source.addEventListener(type, (event) => {
      const data = JSON.parse(event.data)
      state.log.push({ type, id: event.lastEventId, data })
      if (type === 'put') state.doc = data.value
      if (type === 'delete') state.doc = undefined
      if (type === 'patch') state.doc = applyPatch(state.doc, data.patch)
      if (data.etag) state.etag = data.etag
    })
  }
}
main().catch((error) => { state.log.push({ type: 'failed', data: String(error) }) })
`

async function stateOf (page: Page): Promise<PageState> {
  return await page.evaluate(() => (window as unknown as { liveState: () => PageState }).liveState())
}

describe('a browser app on another origin, live', () => {
  it('follows a document through an EventSource with a stream ticket, and after a lost connection gets exactly what it missed', async () => {
    const pagePort = await pageOriginPort()
    const pageOrigin = `http://localhost:${pagePort}`
    const resumedWith: string[] = []
    const recordResumes = fp(async (scope: FastifyInstance) => {
      scope.addHook('onRequest', async (request) => { if (request.headers['last-event-id']) resumedWith.push(String(request.headers['last-event-id'])) })
    })
    const app = await buildTestApp({
      corsOrigins: [pageOrigin],
      access: {
        adminToken: 'live-browser-admin-token-0123456789abcdef',
        anonymousScopes: [],
        open: false,
        jwt: usersJwt(SECRET)
      }
    }, { crossCutting: [recordResumes] })
    const admin = { authorization: 'Bearer live-browser-admin-token-0123456789abcdef' }
    const sockets = new Set<Socket>()
    app.server.on('connection', (socket: Socket) => { sockets.add(socket); socket.once('close', () => sockets.delete(socket)) })
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    const jwt = await signIn(SECRET, '7')
    const key = `users:7:live-${Date.now()}`
    const url = `/docs/${encodeURIComponent(key)}`
    await put(app, url, { count: 0, items: [], note: 'a document long enough that a patch of one member is shorter than its whole value' }, admin)

    const html = '<!doctype html><meta charset="utf-8"><title>live</title>' +
      `<script>window.LIVE = ${JSON.stringify({ baseUrl, jwt, key })}</script><script>${PAGE_SCRIPT}</script>`
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html))
    await new Promise<void>((resolve) => server.listen(pagePort, '127.0.0.1', resolve))
    whenDone(() => new Promise<void>((resolve) => server.close(() => resolve())))

    const browser = await launchBrowser()
    const page = await browser.newPage()
    await page.goto(pageOrigin, { timeout: 20_000 })
    const waitFor = async (check: (state: PageState) => boolean, what: string) => {
      let last: PageState | undefined
      const deadline = Date.now() + 20_000
      while (last === undefined || !check(last)) {
        if (Date.now() > deadline) throw new Error(`The page never ${what}: ${JSON.stringify(last)}`)
        last = await stateOf(page)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return last
    }

    // A write made elsewhere reaches the page.
    await waitFor((state) => state.log.some((entry) => entry.type === 'put'), 'received the document')
    const written = await operate(app, `${url}/count`, { op: 'incr', by: 1 }, admin)
    await waitFor((state) => state.etag === written.headers.etag, 'saw the write')

    // The connection is lost; writes go on meanwhile; the browser reconnects by itself, with Last-Event-ID.
    const before = (await stateOf(page)).log.length
    for (const socket of sockets) socket.destroy()
    const missed = []
    for (let step = 0; step < 5; step++) missed.push(await operate(app, `${url}/items`, { op: 'push', values: [step] }, admin))
    missed.push(await put(app, `${url}/count`, 10, admin))
    const last = missed.at(-1)!.headers.etag
    const after = await waitFor((state) => state.etag === last, 'caught up after reconnecting')

    const expected = (await app.inject({ method: 'GET', url, headers: admin })).json()
    expect(after.doc).toEqual(expected)
    const sinceDrop = after.log.slice(before)
    expect(sinceDrop.map((entry) => entry.type)).toEqual(['error', 'open', 'patch', 'patch', 'patch', 'patch', 'patch', 'patch'])
    expect(resumedWith).toEqual([after.log.slice(0, before).filter((entry) => entry.id).at(-1)!.id])
    const ids = after.log.flatMap((entry) => entry.id ? [entry.id] : [])
    expect(new Set(ids).size).toBe(ids.length)
  }, 90_000)
})
