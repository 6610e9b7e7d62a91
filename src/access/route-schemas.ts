import { emptyResponse, jsonResponse, problemResponses } from '../openapi/components.js'
import { RIGHTS } from './scopes.js'

/** Route schemas of /tokens: each validates and becomes an OpenAPI operation. */

const scope = {
  $id: 'Scope',
  type: 'object',
  description: 'Rights on every key that starts with `prefix`',
  properties: {
    prefix: {
      type: 'string',
      maxLength: 1024,
      pattern: '^[^\\u0000-\\u001f\\u007f]*$',
      description: 'Keys starting with this prefix, byte for byte; end it with the separator to stop at a boundary (`users:42:`)'
    },
    rights: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...RIGHTS] } }
  },
  required: ['prefix', 'rights'],
  additionalProperties: false
} as const

const scopes = { $id: 'Scopes', type: 'array', maxItems: 64, items: { $ref: 'Scope#' } } as const

const tokenInfo = {
  $id: 'TokenInfo',
  type: 'object',
  description: 'A token as listed: never its secret',
  properties: {
    id: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    label: { type: 'string' },
    scopes: { $ref: 'Scopes#' },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When the token stops working, if it has a time to live' }
  },
  required: ['id', 'scopes', 'createdAt'],
  additionalProperties: false
} as const

const createdToken = {
  $id: 'CreatedToken',
  type: 'object',
  description: 'The new token: `token` is its secret, shown this once',
  properties: {
    id: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    token: { type: 'string', description: 'Send as `Authorization: Bearer <token>`' }
  },
  required: ['id', 'token'],
  additionalProperties: false
} as const

const tokenRequest = {
  $id: 'TokenRequest',
  type: 'object',
  properties: {
    scopes: { $ref: 'Scopes#' },
    ttl: { type: 'number', format: 'double', exclusiveMinimum: 0, maximum: 315360000, description: 'Seconds the token lives; forever without' },
    label: { type: 'string', maxLength: 256 }
  },
  required: ['scopes'],
  additionalProperties: false
} as const

const tokenList = {
  $id: 'TokenList',
  type: 'object',
  description: 'Every live token',
  properties: { tokens: { type: 'array', items: { $ref: 'TokenInfo#' } } },
  required: ['tokens'],
  additionalProperties: false
} as const

/** Schemas request bodies reference by `$id`. */
export const tokenBodySchemas = [scope, scopes, tokenRequest]
/** Schemas answers reference by `$id`. */
export const tokenAnswerSchemas = [tokenInfo, tokenList, createdToken]

export const tokenRouteSchemas = {
  create: {
    operationId: 'createToken',
    tags: ['access'],
    summary: 'Create a bearer token with scopes (admin token only)',
    description: 'A scope reaches every key starting with its prefix, byte for byte: end a prefix with the separator ' +
      '(`users:42:`) to stop at that boundary. The secret is shown once and stored only hashed.',
    body: { $ref: 'TokenRequest#' },
    response: {
      201: jsonResponse('The token, with its secret', { $ref: 'CreatedToken#' }),
      ...problemResponses(400)
    }
  },
  list: {
    operationId: 'listTokens',
    tags: ['access'],
    summary: 'Every live token, without secrets (admin token only)',
    response: {
      200: jsonResponse('The tokens', { $ref: 'TokenList#' })
    }
  },
  revoke: {
    operationId: 'revokeToken',
    tags: ['access'],
    summary: 'Revoke a token on every instance, within a second (admin token only)',
    params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] },
    response: {
      204: emptyResponse('Revoked'),
      ...problemResponses(404)
    }
  }
}
