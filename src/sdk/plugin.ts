import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { PUBLIC } from '../access/plugin.js'
import { NotFoundError } from '../errors.js'

/** Where `npm run build:client` writes the client (client/dist, beside src/ and dist/). */
export const CLIENT_DIST = join(import.meta.dirname, '../../client/dist')

interface Asset { body: Buffer, etag: string, modified: number, size: number }

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
  const held = new Map<string, Asset>()

  async function load (name: keyof typeof ASSETS): Promise<Asset> {
    const file = join(dir, name)
    const found = await stat(file).catch(() => undefined)
    if (!found) throw new NotFoundError(`The client module was not built: run npm run build:client (no ${name})`)
    const known = held.get(name)
    if (known && known.modified === found.mtimeMs && known.size === found.size) return known
    const body = await readFile(file)
    const asset = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, modified: found.mtimeMs, size: found.size }
    held.set(name, asset)
    return asset
  }

  for (const [name, type] of Object.entries(ASSETS) as Array<[keyof typeof ASSETS, string]>) {
    app.get(`/sdk/${name}`, { schema: { hide: true }, config: { access: PUBLIC } }, async (request, reply) => {
      const asset = await load(name)
      reply.header('ETag', asset.etag).header('Cache-Control', 'no-cache')
      if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === asset.etag)) return reply.code(304).send()
      return reply.type(type).send(asset.body)
    })
  }
}
