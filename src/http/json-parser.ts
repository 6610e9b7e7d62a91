import fp from 'fastify-plugin'
import { InvalidJsonError, UnstorableJsonError, UnsupportedMediaTypeError } from '../errors.js'
import { screenJsonBody, type JsonBody } from '../documents/json-body.js'

/** The JSON media types the service reads. Others get 415. */
export const JSON_MEDIA_TYPES = [
  'application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/schema+json'
] as const

export interface JsonParserOptions {
  bodyLimit: number
  maxDepth: number
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as sent, beside its parsed value in `body`. */
    json: JsonBody | null
  }
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i

/**
 * Replaces fastify's JSON parser: keeps the exact text (forwarded to Redis untouched) and screens it
 * with screenJsonBody. The parsed value becomes `request.body`, so route schemas still apply.
 */
export default fp<JsonParserOptions>(async function jsonParserPlugin (app, options) {
  app.decorateRequest('json', null)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser([...JSON_MEDIA_TYPES], { parseAs: 'buffer', bodyLimit: options.bodyLimit },
    (request, body, done) => {
      const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]
      if (charset && charset.toLowerCase() !== 'utf-8') {
        return done(new UnsupportedMediaTypeError(`JSON is read as UTF-8 only, not ${charset}`), undefined)
      }
      const verdict = screenJsonBody(body as Buffer, options.maxDepth)
      if ('invalid' in verdict) return done(new InvalidJsonError(verdict.invalid), undefined)
      if ('unstorable' in verdict) return done(new UnstorableJsonError(verdict.unstorable), undefined)
      request.json = verdict.body
      done(null, verdict.body.value)
    })
}, { name: 'json-parser', fastify: '5.x' })

/** The media type of a request, without parameters, lower-cased. */
export function mediaTypeOf (contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase()
}
