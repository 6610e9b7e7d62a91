import { readFileSync } from 'node:fs'
import swagger, { type SwaggerTransform } from '@fastify/swagger'
import type { FastifyInstance, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { problemResponse, problemSchema, unreadySchema, unsearchableValueSchema, validationErrorSchema } from './components.js'
import { mapDiscriminators, type OpenApiDocument } from './discriminators.js'

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

const tags = [
  { name: 'documents', description: 'A document, and any location inside it by JSON Pointer' },
  { name: 'operations', description: 'RedisJSON operations on numbers, strings, arrays and booleans' },
  { name: 'listing', description: 'Document keys by prefix' },
  { name: 'batch', description: 'Many documents in one request' },
  { name: 'expiry', description: 'Time to live of documents' },
  { name: 'schemas', description: 'JSON Schemas of collections, enforced on every write to their documents' },
  { name: 'health', description: 'Liveness for load balancers' },
  { name: 'access', description: 'Bearer tokens and their scopes (the admin token only)' },
  { name: 'live', description: 'Live streams of changes: tickets for clients that cannot send credentials in a header' },
  { name: 'openapi', description: 'This description' }
]

/**
 * The OpenAPI 3.1 description, generated from the route schemas (one source of truth). Registered before
 * any route, so that every route registered later is in it. Paths are relative to `basePath`, the
 * description's server URL.
 */
export default fp(async function openapiPlugin (app: FastifyInstance, { basePath }: { basePath: string }) {
  app.addSchema(validationErrorSchema)
  app.addSchema(unreadySchema)
  app.addSchema(unsearchableValueSchema)
  app.addSchema(problemSchema)
  app.addHook('onRoute', addCommonProblems)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'jsondocs',
        version,
        description: 'JSON documents stored in Redis (RedisJSON), read and edited at any depth over HTTP. A location ' +
          'inside a document is a JSON Pointer (RFC 6901), in the path or in `?pointer=`. Every error is ' +
          'application/problem+json (RFC 9457).'
      },
      servers: [{ url: basePath === '' ? '/' : basePath, description: 'This service' }],
      // Public unless an operation says otherwise: each that needs credentials carries its own `security`.
      security: [],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'A token from POST /tokens, the admin token, or a JWT from the configured identity provider (see docs/access.md)'
          }
        }
      },
      tags
    },
    exposeHeadRoutes: true,
    convertConstToEnum: false,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}` },
    transform: (route) => describeRoute({ ...route, url: route.url.slice(basePath.length) }),
    transformObject: (documentObject) => mapDiscriminators((documentObject as { openapiObject: OpenApiDocument }).openapiObject)
  })
}, { name: 'openapi', fastify: '5.x' })

/**
 * Problems any route may answer, in one place: a malformed request (400, from the HTTP parser too), one
 * not received in time (408), header fields too large (431), Redis unavailable or the service busy (503),
 * and for routes with a body, one too large (413) or of another media type (415).
 */
function addCommonProblems (route: RouteOptions): void {
  const { schema } = route
  if (!schema || schema.hide) return
  const access = route.config?.access
  const guarded = access === undefined || !('public' in access)
  // 503: Redis unavailable, or (any route) a connection over MAX_CONNECTIONS with none idle to make way.
  const statuses = [400, 408, 431, 503, ...(schema.body ? [413, 415] : []), ...(guarded ? [401, 403, 429] : [])]
  const response = { ...(schema.response as Record<string, unknown> | undefined) }
  for (const status of statuses) response[status] ??= problemResponse(status)
  route.schema = { ...schema, response, ...(guarded ? { security: [{ bearer: [] }] } : {}) }
}

type RouteSchema = Parameters<SwaggerTransform>[0]['schema'] & {
  params?: { properties?: Record<string, unknown> }
  querystring?: { properties?: Record<string, unknown>, patternProperties?: Record<string, { title: string, description?: string, items?: object }> }
  response?: Record<string, { description?: string, headers?: object }>
}

function renameWildcard (schema: RouteSchema): RouteSchema {
  const properties = schema.params?.properties
  if (!properties || !('*' in properties)) return schema
  const { '*': pointer, ...others } = properties
  return { ...schema, params: { ...schema.params, properties: { ...others, pointer } } }
}

/**
 * Query parameters named by a pattern (in the GET form of a query, one per pointer) cannot be listed one by
 * one: each pattern becomes an object parameter named by its `title`, whose members are the parameters
 * (a query parameter's default style, form with explode, sends an object so).
 */
function nameQueryPatterns (schema: RouteSchema): RouteSchema {
  const query = schema.querystring
  if (!query?.patternProperties) return schema
  const { patternProperties, ...others } = query
  const named = Object.fromEntries(Object.entries(patternProperties).map(([pattern, { title, description, items }]) =>
    [title, { type: 'object', ...(description ? { description } : {}), propertyNames: { pattern }, additionalProperties: items ?? {} }]))
  return { ...schema, querystring: { ...others, properties: { ...others.properties, ...named } } }
}

/**
 * Fastify's wildcard parameter `*` becomes the `{pointer}` template, pattern-named query parameters one
 * object parameter, and HEAD (which fastify derives
 * from GET) gets its own operationId and answers without bodies.
 */
const describeRoute: SwaggerTransform = ({ schema: routeSchema, url, route }) => {
  const templated = url.endsWith('*') ? url.slice(0, -1) + '{pointer}' : url
  const schema = routeSchema && nameQueryPatterns(renameWildcard(routeSchema as RouteSchema)) as typeof routeSchema
  if (route.method !== 'HEAD' || !schema) return { schema, url: templated }
  const source = schema as RouteSchema
  const response = Object.fromEntries(Object.entries(source.response ?? {}).map(([status, answer]) =>
    [status, { description: answer.description, type: 'null', ...(answer.headers ? { headers: answer.headers } : {}) }]))
  return {
    url: templated,
    schema: {
      ...source,
      operationId: source.operationId && headOperationId(source.operationId),
      summary: source.summary && `${source.summary} (headers only)`,
      response
    } as typeof schema
  }
}

/** getDocument-head -> headDocument, listDocuments-head -> headListDocuments. */
function headOperationId (id: string): string {
  const base = id.replace(/-head$/, '')
  return base.startsWith('get') ? 'head' + base.slice(3) : 'head' + base[0]!.toUpperCase() + base.slice(1)
}
