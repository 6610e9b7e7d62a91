import fastifyCors from '@fastify/cors'
import type { FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { PUBLIC } from '../access/plugin.js'

/** The origins a browser app may call the service from: every one, or these exactly (CORS_ORIGINS). */
export type CorsOrigins = '*' | string[]

/** Request header fields a browser app sends beyond the CORS-safelisted ones. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Last-Event-ID', 'Prefer', 'X-Request-Id']
/** Response header fields a browser app may read beyond the CORS-safelisted ones. */
export const EXPOSED_HEADERS = [
  'ETag', 'Location', 'Expires-In', 'Retry-After', 'Link', 'Allow', 'Preference-Applied', 'X-Request-Id', 'WWW-Authenticate',
  'RateLimit', 'RateLimit-Policy'
]
/** Seconds a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE = 600

/**
 * CORS_ORIGINS as the setting is written: `*`, or origins separated by commas, each exactly
 * `scheme://host[:port]` (http or https, no path, no trailing slash), compared byte for byte with `Origin`.
 */
export function parseCorsOrigins (text: string): CorsOrigins {
  if (text.trim() === '*') return '*'
  const origins = text.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '')
  if (origins.length === 0) throw new Error('CORS_ORIGINS: give `*` or a comma-separated list of origins')
  for (const origin of origins) {
    let parsed: URL | undefined
    try {
      parsed = new URL(origin)
    } catch {
      parsed = undefined
    }
    const named = parsed !== undefined && /^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(parsed.hostname)
    if (!parsed || !named || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin such as https://app.example.com or http://localhost:5173`)
    }
  }
  return origins
}

/** A preflight: OPTIONS naming the method the browser means to send, from some origin. */
function isPreflight (request: FastifyRequest): boolean {
  return request.raw.method === 'OPTIONS' && request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
}

/**
 * CORS (@fastify/cors) in the cross-cutting tier, before access: preflights are answered without
 * credentials (browsers send none), and every answer, 401, 403 and 429 included, carries the headers a
 * browser needs to read it. A plain OPTIONS keeps the route's own answer (`Allow`). No credentials mode:
 * the service takes bearer tokens, never cookies.
 */
export default fp<{ origins: CorsOrigins }>(async function corsPlugin (app, { origins }) {
  // The plugin's catch-all OPTIONS route only lets preflights of unknown URLs be routed: public.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.url === '*' && route.method === 'OPTIONS' && route.config?.access === undefined) {
      route.config = { ...route.config, access: PUBLIC }
    }
  })
  const options = {
    origin: origins,
    methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    credentials: false,
    strictPreflight: false,
    optionsSuccessStatus: 204
  }
  const off = { origin: false }
  await app.register(fastifyCors, {
    hook: 'onRequest',
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: object) => void) => {
      callback(null, request.raw.method === 'OPTIONS' && !isPreflight(request) ? off : options)
    }
  })
}, { name: 'cors', fastify: '5.x' })
