import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { NotFoundError } from '../errors.js'

export interface StaticFile { body: Buffer, etag: string, modified: number, size: number }

/**
 * The files of a build directory (the client's, the console's), read on first request and again whenever
 * one changes (a rebuild while the service runs), each with a strong ETag of its content. A file not built
 * is a 404 whose detail is `missing(name)`.
 */
export function staticFiles (dir: string, missing: (name: string) => string): (name: string) => Promise<StaticFile> {
  const held = new Map<string, StaticFile>()
  return async function load (name) {
    const file = join(dir, name)
    const found = await stat(file).catch(() => undefined)
    if (!found) throw new NotFoundError(missing(name))
    const known = held.get(name)
    if (known && known.modified === found.mtimeMs && known.size === found.size) return known
    const body = await readFile(file)
    const loaded = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, modified: found.mtimeMs, size: found.size }
    held.set(name, loaded)
    return loaded
  }
}

/** Answers a file with its ETag and `Cache-Control: no-cache` (browsers revalidate), or 304 when `If-None-Match` names it. */
export function sendStatic (request: FastifyRequest, reply: FastifyReply, file: StaticFile, type: string): FastifyReply {
  reply.header('ETag', file.etag).header('Cache-Control', 'no-cache')
  if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === file.etag)) return reply.code(304).send()
  return reply.type(type).send(file.body)
}
