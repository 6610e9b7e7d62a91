import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { PUBLIC } from '../access/plugin.js'
import { sendStatic, staticFiles } from '../http/static-files.js'

/** Where `npm run build:client` writes the client (client/dist, beside src/ and dist/). */
export const CLIENT_DIST = join(import.meta.dirname, '../../client/dist')

const ASSETS = {
  'jsondocs.js': 'text/javascript; charset=utf-8',
  'jsondocs.js.map': 'application/json; charset=utf-8'
} as const

/**
 * GET /sdk/jsondocs.js and its source map: the browser and Node client, public, so that a page on an
 * allowed origin imports it with no build step. Read from `dir` on first request and again whenever the
 * file changes (a rebuild while the service runs); answered with a strong ETag and `Cache-Control:
 * no-cache`, so browsers revalidate and get 304 until it changes. A service whose client was not built
 * answers 404 saying so. Hidden from the description, as the reference page's assets are.
 */
export default async function sdkRoutes (app: FastifyInstance, { dir = CLIENT_DIST }: { dir?: string } = {}) {
  const load = staticFiles(dir, (name) => `The client module was not built: run npm run build:client (no ${name})`)
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`/sdk/${name}`, { schema: { hide: true }, config: { access: PUBLIC } }, async (request, reply) =>
      sendStatic(request, reply, await load(name), type))
  }
}
