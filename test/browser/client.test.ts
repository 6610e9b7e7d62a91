/// <reference lib="dom" />
import { createServer } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Page } from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import type { Change, Database, PrefixChange } from '../../client/src/index.js'
import { buildTestApp, operate, put } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { launchBrowser, pageOriginPort, signIn, usersJwt } from './browser.js'

const SECRET = 'browser-client-test-jwt-secret-0123456789'
const ADMIN = 'browser-client-admin-token-0123456789abcdef'
const admin = { authorization: `Bearer ${ADMIN}` }

/** What the page keeps on window: the module's exports, a client with its JWT, and what its watches saw. */
interface PageWindow {
  jsondocs: typeof import('../../client/src/index.js')
  db: Database
  seen: Array<{ value: unknown, change: Change }>
  prefixSeen: Array<{ key: string | null, value: unknown, change: PrefixChange }>
}
const win = () => window as unknown as PageWindow

async function until<T> (page: Page, check: () => T, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!await page.evaluate(check)) {
    if (Date.now() > deadline) throw new Error(`The page never ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('the client in a browser, imported from the service on another origin', () => {
  it('puts, gets, updates from two tabs without losing one, watches across a cut connection, and throws problems', async () => {
    const pagePort = await pageOriginPort()
    const pageOrigin = `http://localhost:${pagePort}`
    const resumedWith: string[] = []
    const recordResumes = fp(async (scope: FastifyInstance) => {
      scope.addHook('onRequest', async (request) => { if (request.headers['last-event-id']) resumedWith.push(String(request.headers['last-event-id'])) })
    })
    const app = await buildTestApp({
      corsOrigins: [pageOrigin], access: { adminToken: ADMIN, anonymousScopes: [], open: false, jwt: usersJwt(SECRET) }
    }, { crossCutting: [recordResumes] })
    const sockets = new Set<Socket>()
    app.server.on('connection', (socket: Socket) => { sockets.add(socket); socket.once('close', () => sockets.delete(socket)) })
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    const jwt = await signIn(SECRET, '42')

    const html = '<!doctype html><meta charset="utf-8"><title>jsondocs client</title><script type="module">' +
      `import * as jsondocs from ${JSON.stringify(`${baseUrl}/sdk/jsondocs.js`)}\n` +
      `window.jsondocs = jsondocs; window.db = jsondocs.connect({ baseUrl: ${JSON.stringify(baseUrl)}, token: async () => ${JSON.stringify(jwt)} })\n` +
      // `win` is the test's name for window, typed; the page defines it too, for the functions the test sends it.
      'window.seen = []; window.prefixSeen = []; window.win = () => window</script>'
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html))
    await new Promise<void>((resolve) => server.listen(pagePort, '127.0.0.1', resolve))
    whenDone(() => new Promise<void>((resolve) => server.close(() => resolve())))

    const browser = await launchBrowser()
    const tabs = [await browser.newPage(), await browser.newPage()] as const
    for (const tab of tabs) {
      await tab.goto(pageOrigin, { timeout: 20_000 })
      await until(tab, () => 'db' in window, 'loaded the module')
    }
    const [first, second] = tabs

    // put and get
    const read = await first.evaluate(async () => {
      const doc = win().db.doc('users:42:profile')
      const { etag } = await doc.put({ name: 'Ann' }, { create: true })
      return { etag, read: await doc.get(), nested: await win().db.doc('users:42:profile', '/name').get() }
    })
    expect(read.read).toEqual({ value: { name: 'Ann' }, etag: read.etag })
    expect(read.nested).toEqual({ value: 'Ann', etag: read.etag })

    // Two tabs update one document at once: every update lands.
    const updates = async (tab: string) => {
      for (let step = 0; step < 8; step++) {
        await win().db.doc<{ count: number, by: string[] }>('users:42:counter')
          .update((value) => ({ count: (value?.count ?? 0) + 1, by: [...(value?.by ?? []), `${tab}${step}`] }), { tries: 50 })
      }
    }
    await Promise.all([first.evaluate(updates, 'a'), second.evaluate(updates, 'b')])
    const counter = (await app.inject({ method: 'GET', url: '/docs/users:42:counter', headers: admin })).json()
    expect(counter.count).toBe(16)
    expect(new Set(counter.by).size).toBe(16)

    // A watch in the first tab, a prefix watch in the second; the server cuts every connection meanwhile.
    const key = 'users:42:live'
    await put(app, `/docs/${key}`, { count: 0, note: 'long enough that a patch of one member is shorter than the whole value' }, admin)
    await first.evaluate((key) => { win().db.doc(key).watch((value, change) => { win().seen.push({ value, change }) }) }, key)
    await second.evaluate(() => { win().db.prefix('users:').watch((key, value, change) => { win().prefixSeen.push({ key, value, change }) }) })
    await until(first, () => win().seen.length === 1, 'received the value')
    // The prefix stream has no first value: it follows once it shows a write.
    const deadline = Date.now() + 20_000
    while ((await second.evaluate(() => win().prefixSeen.length)) === 0) {
      if (Date.now() > deadline) throw new Error('The prefix watch never followed')
      await put(app, '/docs/users:42:ready', true, admin)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }

    let last = ''
    for (let step = 0; step < 3; step++) last = (await operate(app, `/docs/${key}/count`, { op: 'incr', by: 1 }, admin)).headers.etag as string
    await put(app, '/docs/users:43:live', { other: true }, admin)
    // The cut comes once the page holds the three writes (on a cluster events arrive by polling, later), so
    // that the watch resumes from the id of the last of them.
    await until(first, () => win().seen.length === 4, 'received the three writes')
    for (const socket of sockets) socket.destroy()
    for (let step = 0; step < 3; step++) last = (await operate(app, `/docs/${key}/count`, { op: 'incr', by: 1 }, admin)).headers.etag as string
    await until(first, new Function(`return window.seen.at(-1)?.change.etag === ${JSON.stringify(last)}`) as () => boolean, 'caught up')
    await until(second, new Function(`return window.prefixSeen.at(-1)?.change.etag === ${JSON.stringify(last)}`) as () => boolean, 'caught up by prefix')

    const seen = await first.evaluate(() => win().seen)
    const stored = (await app.inject({ method: 'GET', url: `/docs/${key}`, headers: admin })).json()
    expect(seen.at(-1)!.value).toEqual(stored)
    expect(seen.map(({ value }) => (value as { count: number }).count)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(new Set(seen.map(({ change }) => change.id)).size).toBe(seen.length)
    // Both streams resumed with Last-Event-ID, which the service's CORS preflights allow.
    expect(resumedWith).toEqual(expect.arrayContaining([seen[3]!.change.id]))
    expect(resumedWith.length).toBeGreaterThanOrEqual(2)
    const prefixSeen = await second.evaluate(() => win().prefixSeen)
    expect(prefixSeen.every(({ key }) => key!.startsWith('users:42:'))).toBe(true)
    // The first patch of a document the prefix watch never saw whole reads it, as it then is: the events that
    // read already holds are skipped, so counts only grow, up to the last.
    const counts = prefixSeen.filter(({ key: at }) => at === key).map(({ value }) => (value as { count: number }).count)
    expect(counts.at(-1)).toBe(6)
    expect(counts).toEqual([...new Set(counts)].sort((a, b) => a - b))

    // Refusals are problems, thrown as the module's error class.
    const refused = await first.evaluate(async () => {
      try {
        await win().db.doc('users:43:live').get()
        return undefined
      } catch (error) {
        const { status, code, title } = error as InstanceType<PageWindow['jsondocs']['JsondocsError']>
        return { isClass: error instanceof win().jsondocs.JsondocsError, status, code, title }
      }
    })
    expect(refused).toEqual({ isClass: true, status: 403, code: 'DOCS_ERR_FORBIDDEN', title: 'Not within the credentials\' scopes' })
  }, 120_000)
})
