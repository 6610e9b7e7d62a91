import { METHODS } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { PUBLIC } from '../access/plugin.js'
import { MethodNotAllowedError } from '../errors.js'

const ORDER = ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE']

export type RouteMethods = Map<string, Set<string>>

/**
 * Makes every method Node's parser knows (PROPFIND, LOCK, CONNECT...) one fastify routes, so that a route
 * answers those it lacks with 405 like any other. None of them has a body fastify would read.
 */
export function routeEveryMethod (app: FastifyInstance): void {
  for (const method of METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method)
  }
}

/** Starts recording the methods of every described route URL registered from now on. */
export function recordRouteMethods (app: FastifyInstance): RouteMethods {
  const methods: RouteMethods = new Map()
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.hide) return
    const known = methods.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) known.add(method)
    methods.set(route.url, known)
  })
  return methods
}

function byOrder (a: string, b: string): number {
  const rank = (method: string) => ORDER.includes(method) ? ORDER.indexOf(method) : ORDER.length
  return rank(a) - rank(b) || a.localeCompare(b)
}

/**
 * Every method a route URL lacks answers 405 with `Allow`, before its body is read (a method such as
 * QUERY would otherwise be refused for its missing Content-Type first). Registered after all routes.
 */
export default async function methodNotAllowedRoutes (app: FastifyInstance, { methods }: { methods: RouteMethods }) {
  for (const [url, known] of [...methods]) {
    const allow = [...known].filter((method) => method !== 'OPTIONS').sort(byOrder).join(', ')
    const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('Allow', allow)
      throw new MethodNotAllowedError(request.method, allow)
    }
    app.route({
      method: app.supportedMethods.filter((method) => !known.has(method)),
      url,
      schema: { hide: true },
      // It only ever refuses, naming the methods the resource has.
      config: { access: PUBLIC },
      onRequest: refuse,
      handler: refuse
    })
  }
}
