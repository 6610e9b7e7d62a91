import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { PUBLIC } from '../access/plugin.js'
import { sendStatic, staticFiles } from '../http/static-files.js'

/** Where `npm run build:console` writes the console (console/dist, beside src/ and dist/). */
export const CONSOLE_DIST = join(import.meta.dirname, '../../console/dist')

/**
 * The console's pages may run only the service's own script and styles, and talk to the service alone:
 * nothing inline, nothing from elsewhere, no frames, no form posts, no plugins.
 */
export const CONSOLE_POLICY = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:",
  "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"
].join('; ')

/** Each URL of the console, the file it serves and its type. */
const FILES = [
  { url: '/console', name: 'index.html', type: 'text/html; charset=utf-8' },
  { url: '/console/console.js', name: 'console.js', type: 'text/javascript; charset=utf-8' },
  { url: '/console/console.css', name: 'console.css', type: 'text/css; charset=utf-8' }
]

/**
 * GET /console and its script and styles: the console, a page that works with the service on the
 * credentials a person types in. Public, as /reference is: the page holds no data and no secret, and every
 * call it makes carries the token entered. Served as the client is (strong ETag, `Cache-Control:
 * no-cache`, 404 saying so when not built), with a strict Content-Security-Policy. Hidden from the description.
 */
export default async function consoleRoutes (app: FastifyInstance, { dir = CONSOLE_DIST }: { dir?: string } = {}) {
  const load = staticFiles(dir, (name) => `The console was not built: run npm run build:console (no ${name})`)
  for (const { url, name, type } of FILES) {
    app.get(url, { schema: { hide: true }, config: { access: PUBLIC } }, async (request, reply) => {
      reply.header('Content-Security-Policy', CONSOLE_POLICY)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Referrer-Policy', 'no-referrer')
        .header('X-Frame-Options', 'DENY')
      return sendStatic(request, reply, await load(name), type)
    })
  }
}
