import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { LruMap } from 'toad-cache'
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../errors.js'
import { createJwtVerifier, JwtRefused, looksLikeJwt } from './jwt.js'
import type { Admission, RateLimit, RateLimiter } from './rate-limit.js'
import { ADMIN, budgetIdentity, holdsAnywhere, reaches, type Access, type Right } from './scopes.js'
import type { AccessSettings } from './settings.js'
import { createTokenStore, type TokenStore, type Verified } from './tokens.js'
import { createTicketStore, type TicketStore } from './tickets.js'
import { wantsEventStream } from '../live/sse.js'

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
    /** The route answers live streams (text/event-stream): the one kind a stream ticket opens. */
    liveStream?: boolean
  }
  interface FastifyRequest {
    /** What the request may do, as its credentials (or their absence) say; set before any route hook. */
    access: Access
  }
  interface FastifyInstance {
    access: {
      tokens: TokenStore
      /** Stream tickets: credentials for live streams of one document, for clients that cannot send headers. */
      tickets: TicketStore
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
  /** How long a stream ticket opens streams (STREAM_TICKET_TTL_MS); 5 minutes by default. */
  ticketTtlMs?: number
  /** Counts requests per credential (per client address without one) between authentication and authorization. */
  rateLimiters?: ReadonlyMap<RateLimit['name'], RateLimiter>
}

const REALM = 'Bearer realm="jsondocs"'
const BEARER = /^Bearer +([\x21-\x7e]{1,4096}) *$/i
/**
 * Verified credentials an instance remembers (each for at most 1 s for tokens, 30 s and never past
 * `exp` for JWTs): only verified ones, so random bearer strings cannot grow it.
 */
const VERIFIED_KEPT = 10_000

interface Remembered { access: Access, until: number }

function refuse (reply: FastifyReply, error: 'invalid_token' | 'insufficient_scope' | undefined, problem: Error): Error {
  reply.header('WWW-Authenticate', error === undefined ? REALM : `${REALM}, error="${error}"`)
  return problem
}

/** Authenticates every request (onRequest) and enforces every route's declared rule right after. */
export default fp<AccessPluginOptions>(async function accessPlugin (app, options) {
  const { settings } = options
  const tokens = createTokenStore(app.redis, app.redisWrites, options)
  const tickets = createTicketStore(app.redis, app.redisWrites, { ...options, ttlMs: options.ticketTtlMs ?? 300_000 })
  const verifyJwt = settings.jwt && createJwtVerifier(settings.jwt, options.collectionSeparator)
  const adminToken = settings.adminToken === undefined ? undefined : Buffer.from(settings.adminToken)
  const remembered = new LruMap<Remembered>(VERIFIED_KEPT)
  const anonymous: Access = { kind: 'scoped', scopes: settings.anonymousScopes, credential: 'anonymous' }
  const withAnonymous = ({ scopes, lifeline }: Verified, credential: 'token' | 'jwt', identity: string): Access =>
    ({ kind: 'scoped', scopes: [...scopes, ...settings.anonymousScopes], credential, identity, lifeline })
  const routes: RouteOptions[] = []
  /** Why a request's credentials were refused, kept for the routes that need credentials. */
  const refusals = new WeakMap<FastifyRequest, string>()
  /** Requests whose Authorization names another scheme than Bearer: RFC 6750 gives their refusal no error code. */
  const otherSchemes = new WeakSet<FastifyRequest>()

  app.decorate('access', {
    tokens,
    tickets,
    // Read when asked: a plugin's own onRoute hook may declare its routes after this one saw them.
    declaredRules: () => routes.map((route) => ({ method: route.method, url: route.url, rule: route.config?.access }))
  })
  app.decorateRequest('access', null as never)
  app.addHook('onRoute', (route: RouteOptions) => {
    routes.push(route)
  })

  /** Whether a bearer string is the admin token, in time independent of where they differ (its length is told). */
  function isAdmin (bearer: string): boolean {
    if (adminToken === undefined || bearer.length !== adminToken.length) return false
    const given = Buffer.from(bearer)
    return given.length === adminToken.length && timingSafeEqual(given, adminToken)
  }

  /** What a bearer string verifies to, or the reason it verifies to nothing. */
  async function verify (bearer: string): Promise<Remembered | string> {
    let verified: Verified | undefined
    let credential: 'jwt' | 'token' = 'token'
    if (verifyJwt && looksLikeJwt(bearer)) {
      credential = 'jwt'
      try {
        verified = await verifyJwt(bearer)
      } catch (error) {
        if (error instanceof JwtRefused) return error.message
        throw error
      }
    } else {
      verified = await tokens.verify(bearer)
      if (verified === undefined) return 'The bearer token is unknown, revoked or expired'
    }
    const entry = { access: withAnonymous(verified, credential, identityOf(bearer, credential)), until: verified.until }
    remembered.set(bearer, entry)
    return entry
  }

  /**
   * The access of a stream ticket (`?ticket=`): read on its one document (or under its prefix, within the read
   * prefixes it was made with), for live streams alone, while the
   * credential it was made for holds; or the reason it gives none. Never remembered: each use asks Redis.
   */
  async function verifyTicket (request: FastifyRequest, text: string): Promise<Remembered | string> {
    if (!wantsEventStream(request)) return 'A stream ticket opens live streams alone (GET with Accept: text/event-stream)'
    const ticket = await tickets.verify(text)
    if (ticket === undefined) return 'The stream ticket is unknown or expired'
    const { tokenId, expiresAt } = ticket.lifeline
    if ((expiresAt !== undefined && expiresAt <= Date.now()) || (tokenId !== undefined && (await tokens.gone([tokenId])).size > 0)) {
      return 'The credentials the stream ticket was made for are revoked or expired'
    }
    const { target } = ticket
    const access: Access = 'key' in target
      ? { kind: 'scoped', scopes: [{ prefix: target.key, rights: ['read'] }], credential: 'ticket', lifeline: ticket.lifeline, ticketKey: target.key }
      : {
          kind: 'scoped',
          scopes: target.reach.map((prefix) => ({ prefix, rights: ['read'] })),
          credential: 'ticket',
          lifeline: ticket.lifeline,
          ticketPrefix: target.prefix
        }
    if (ticket.identity !== undefined) access.identity = ticket.identity
    return { access, until: 0 }
  }

  function settle (request: FastifyRequest, outcome: Remembered | string): void {
    if (typeof outcome === 'string') {
      request.access = anonymous
      refusals.set(request, outcome)
    } else {
      request.access = outcome.access
    }
  }

  // Callback hooks, synchronous unless Redis or a JWT must be asked: most requests never wait.
  app.addHook('onRequest', function authenticate (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    const header = request.headers.authorization
    const ticket = (request.query as Record<string, unknown> | undefined)?.ticket
    if (settings.open) request.access = ADMIN
    else if (header === undefined && typeof ticket === 'string') {
      verifyTicket(request, ticket).then((outcome) => { settle(request, outcome); done() }, done)
      return
    } else if (header === undefined) request.access = anonymous
    else {
      const bearer = BEARER.exec(header)?.[1]
      if (bearer === undefined) {
        if (!/^Bearer(?: |$)/i.test(header)) otherSchemes.add(request)
        settle(request, 'The Authorization header is not "Bearer <token>"')
      }
      else if (isAdmin(bearer)) request.access = ADMIN
      else {
        const known = remembered.get(bearer)
        if (known === undefined || known.until <= Date.now()) {
          verify(bearer).then((outcome) => { settle(request, outcome); done() }, done)
          return
        }
        request.access = known.access
      }
    }
    done()
  })

  const limiters = options.rateLimiters
  if (limiters !== undefined && limiters.size > 0) app.addHook('onRequest', rateLimitHook(limiters))

  app.addHook('onRequest', function authorize (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    let refused: Error | undefined
    try {
      refused = refusalOf(request, reply)
    } catch (error) {
      refused = error as Error
    }
    done(refused)
  })

  /** Why the route's rule refuses the request, or undefined when it passes. */
  function refusalOf (request: FastifyRequest, reply: FastifyReply): Error | undefined {
    // An unknown route answers 404 whoever asks; it reaches nothing.
    if (request.is404) return
    const rule = request.routeOptions.config.access
    if (rule !== undefined && 'public' in rule) return
    const refusal = refusals.get(request)
    if (refusal !== undefined) return refuse(reply, otherSchemes.has(request) ? undefined : 'invalid_token', new UnauthorizedError(refusal))
    if (rule === undefined) {
      return refuse(reply, 'insufficient_scope', new ForbiddenError('This route declares no access rule, so it is refused to everyone'))
    }
    const access = request.access
    if ('admin' in rule) {
      if (access.kind !== 'admin') return denied(reply, access, 'Only the admin token manages tokens')
      return
    }
    if (access.kind === 'scoped' && access.ticketPrefix !== undefined &&
      (rule.right !== 'read' || rule.target !== undefined || request.routeOptions.config.liveStream !== true ||
        ((request.query as Record<string, unknown>).prefix ?? '') !== access.ticketPrefix)) {
      return denied(reply, access, `The stream ticket opens live streams of keys starting with ${JSON.stringify(access.ticketPrefix)} alone`)
    }
    if (rule.target === undefined) {
      if (access.kind === 'scoped' && access.ticketKey !== undefined) {
        return denied(reply, access, `The stream ticket opens live streams of ${JSON.stringify(access.ticketKey)} alone`)
      }
      if (!holdsAnywhere(access, rule.right)) return denied(reply, access, `The credentials hold no "${rule.right}" right`)
      return
    }
    const target = rule.target(request)
    if (access.kind === 'scoped' && access.ticketKey !== undefined &&
      (rule.right !== 'read' || target !== access.ticketKey || request.routeOptions.config.liveStream !== true)) {
      return denied(reply, access, `The stream ticket opens live streams of ${JSON.stringify(access.ticketKey)} alone`)
    }
    if (!reaches(access, rule.right, target)) {
      return denied(reply, access, `The credentials' scopes give no "${rule.right}" right on ${JSON.stringify(target)}`)
    }
  }
}, { name: 'access', dependencies: ['redis'], fastify: '5.x' })

/** A credential's name for rate limits: a token's id, or a digest of a JWT; never the secret. */
function identityOf (bearer: string, credential: 'token' | 'jwt'): string {
  if (credential === 'token') return 'token:' + bearer.slice(4, 36)
  return 'jwt:' + createHash('sha256').update(bearer).digest('base64url').slice(0, 22)
}

/**
 * Counts every request but the admin's and those of public routes and unknown URLs, refused credentials
 * included (by client address): it runs after authentication, before authorization. Every answer it
 * applies to carries the RateLimit fields; past the limit, 429 with Retry-After before anything else runs.
 * Should Redis not answer, the request goes on: it needs Redis for anything else it does anyway.
 */
function rateLimitHook (limiters: ReadonlyMap<RateLimit['name'], RateLimiter>) {
  function answer (reply: FastifyReply, { limit }: RateLimiter, admission: Admission): Error | undefined {
    reply.header('RateLimit-Policy', `"${limit.name}";q=${limit.count};w=${limit.windowSeconds}`)
      .header('RateLimit', `"${limit.name}";r=${admission.remaining};t=${admission.resetSeconds}`)
    if (admission.allowed) return undefined
    reply.header('Retry-After', String(admission.resetSeconds))
    const which = limit.name === 'default' ? 'requests' : `requests needing the "${limit.name}" right`
    return new RateLimitedError(`More than ${limit.count} ${which} in ${limit.windowSeconds} s from these credentials (or this address); retry in ${admission.resetSeconds} s`)
  }
  return function limitRate (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const access = request.access
    if (request.is404 || access.kind === 'admin') return done()
    const rule = request.routeOptions.config.access
    if (rule !== undefined && 'public' in rule) return done()
    const right = rule !== undefined && 'right' in rule ? rule.right : undefined
    const limiter = (right === undefined ? undefined : limiters.get(right)) ?? limiters.get('default')
    if (limiter === undefined) return done()
    const identity = budgetIdentity(access, request.ip)
    const now = limiter.admitNow(identity)
    if (now !== undefined) return done(answer(reply, limiter, now))
    limiter.admit(identity).then((admission) => done(answer(reply, limiter, admission)), (error: Error) => {
      request.log.warn({ err: error }, 'rate limit not counted: Redis did not answer')
      done()
    })
  }
}

/** 401 when the request came without credentials (some may help), 403 when its credentials fall short. */
export function denied (reply: FastifyReply, access: Access, detail: string): Error {
  if (access.kind === 'scoped' && access.credential === 'anonymous') {
    return refuse(reply, undefined, new UnauthorizedError(`${detail}; send "Authorization: Bearer <token>"`))
  }
  return refuse(reply, 'insufficient_scope', new ForbiddenError(detail))
}
