import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { ForbiddenError, UnauthorizedError } from '../errors.js'
import { createJwtVerifier, JwtRefused, looksLikeJwt } from './jwt.js'
import { ADMIN, holdsAnywhere, reaches, type Access, type Right, type Scope } from './scopes.js'
import type { AccessSettings } from './settings.js'
import { createTokenStore, type TokenStore } from './tokens.js'

/**
 * What a route declares in its `config.access`: public, the admin's alone, or a right. With `target`, the
 * right is checked on the key it names (for a collection, `collection + separator`) before anything else
 * runs; without, the route holds many keys (batches, listings) and checks each itself, and the hook only
 * asks that the right be held somewhere. A route that declares nothing is refused to everyone.
 */
export type AccessRule =
  | { public: true }
  | { admin: true }
  | { right: Right, target?: (request: FastifyRequest) => string }

export const PUBLIC: AccessRule = { public: true }
export const ADMIN_ONLY: AccessRule = { admin: true }

/**
 * Declares a rule for every route registered in `scope` from now on: for routes a third-party plugin
 * registers (the reference page's, say), which take no route config of ours.
 */
export function declareRoutes (scope: FastifyInstance, rule: AccessRule): void {
  scope.addHook('onRoute', (route: RouteOptions) => { route.config = { ...route.config, access: rule } })
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: AccessRule
  }
  interface FastifyRequest {
    /** What the request may do, as its credentials (or their absence) say; set before any route hook. */
    access: Access
  }
  interface FastifyInstance {
    access: {
      tokens: TokenStore
      /** Every route registered after the plugin, with its declared rule: a route without one fails closed. */
      declaredRules (): Array<{ method: string | string[], url: string, rule: AccessRule | undefined }>
    }
  }
}

export interface AccessPluginOptions {
  settings: AccessSettings
  keyPrefix: string
  collectionSeparator: string
  timeoutMs: number
}

const REALM = 'Bearer realm="jsondocs"'

function digest (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

function refuse (reply: FastifyReply, error: 'invalid_token' | 'insufficient_scope' | undefined, problem: Error): Error {
  reply.header('WWW-Authenticate', error === undefined ? REALM : `${REALM}, error="${error}"`)
  return problem
}

/** Authenticates every request (onRequest) and enforces every route's declared rule right after. */
export default fp<AccessPluginOptions>(async function accessPlugin (app, options) {
  const { settings } = options
  const tokens = createTokenStore(app.redis, options)
  const verifyJwt = settings.jwt && createJwtVerifier(settings.jwt, options.collectionSeparator)
  const adminDigest = settings.adminToken === undefined ? undefined : digest(settings.adminToken)
  const anonymous: Access = { kind: 'scoped', scopes: settings.anonymousScopes, credential: 'anonymous' }
  const withAnonymous = (scopes: Scope[], credential: 'token' | 'jwt'): Access =>
    ({ kind: 'scoped', scopes: [...scopes, ...settings.anonymousScopes], credential })
  const routes: RouteOptions[] = []
  /** Why a request's credentials were refused, kept for the routes that need credentials. */
  const refusals = new WeakMap<FastifyRequest, string>()

  app.decorate('access', {
    tokens,
    // Read when asked: a plugin's own onRoute hook may declare its routes after this one saw them.
    declaredRules: () => routes.map((route) => ({ method: route.method, url: route.url, rule: route.config?.access }))
  })
  app.decorateRequest('access', null as never)
  app.addHook('onRoute', (route: RouteOptions) => {
    routes.push(route)
  })

  /** The access of a bearer string, or the reason it gives none. */
  async function accessOfBearer (bearer: string): Promise<Access | string> {
    // Digests of equal length, compared in constant time: the admin token's length is not told either.
    if (adminDigest && timingSafeEqual(digest(bearer), adminDigest)) return ADMIN
    if (verifyJwt && looksLikeJwt(bearer)) {
      try {
        return withAnonymous(await verifyJwt(bearer), 'jwt')
      } catch (error) {
        if (error instanceof JwtRefused) return error.message
        throw error
      }
    }
    const scopes = await tokens.verify(bearer)
    return scopes === undefined ? 'The bearer token is unknown, revoked or expired' : withAnonymous(scopes, 'token')
  }

  app.addHook('onRequest', async function authenticate (request) {
    if (settings.open) {
      request.access = ADMIN
      return
    }
    const header = request.headers.authorization
    if (header === undefined) {
      request.access = anonymous
      return
    }
    const match = /^Bearer +([\x21-\x7e]{1,4096}) *$/i.exec(header)
    const access = match ? await accessOfBearer(match[1]!) : 'The Authorization header is not "Bearer <token>"'
    if (typeof access === 'string') {
      request.access = anonymous
      refusals.set(request, access)
    } else {
      request.access = access
    }
  })

  app.addHook('onRequest', async function authorize (request, reply) {
    // An unknown route answers 404 whoever asks; it reaches nothing.
    if (request.is404) return
    const rule = request.routeOptions.config.access
    if (rule !== undefined && 'public' in rule) return
    const refusal = refusals.get(request)
    if (refusal !== undefined) throw refuse(reply, 'invalid_token', new UnauthorizedError(refusal))
    if (rule === undefined) {
      throw refuse(reply, 'insufficient_scope', new ForbiddenError('This route declares no access rule, so it is refused to everyone'))
    }
    const access = request.access
    if ('admin' in rule) {
      if (access.kind !== 'admin') throw denied(reply, access, 'Only the admin token manages tokens')
      return
    }
    if (rule.target === undefined) {
      if (!holdsAnywhere(access, rule.right)) throw denied(reply, access, `The credentials hold no "${rule.right}" right`)
      return
    }
    const target = rule.target(request)
    if (!reaches(access, rule.right, target)) {
      throw denied(reply, access, `The credentials' scopes give no "${rule.right}" right on ${JSON.stringify(target)}`)
    }
  })
}, { name: 'access', dependencies: ['redis'], fastify: '5.x' })

/** 401 when the request came without credentials (some may help), 403 when its credentials fall short. */
export function denied (reply: FastifyReply, access: Access, detail: string): Error {
  if (access.kind === 'scoped' && access.credential === 'anonymous') {
    return refuse(reply, undefined, new UnauthorizedError(`${detail}; send "Authorization: Bearer <token>"`))
  }
  return refuse(reply, 'insufficient_scope', new ForbiddenError(detail))
}
