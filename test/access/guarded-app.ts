import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { Scope } from '../../src/access/scopes.js'
import type { AccessSettings } from '../../src/access/settings.js'
import { buildTestApp } from '../helpers/app.js'

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef'

/** An app with access control on: the admin token, and whatever else the test sets. */
export function buildGuardedApp (access: Partial<AccessSettings> = {}) {
  return buildTestApp({ access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false, ...access } })
}

export function bearer (token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}

/** Creates a token with these scopes through POST /tokens, as the admin. */
export async function tokenFor (app: FastifyInstance, scopes: Scope[], ttl?: number): Promise<{ id: string, token: string }> {
  const response = await app.inject({
    method: 'POST', url: '/tokens', headers: bearer(ADMIN_TOKEN), payload: { scopes, ...(ttl === undefined ? {} : { ttl }) }
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json()
}

/** A 403 from the registry, with RFC 6750's `insufficient_scope`. */
export function expectForbidden (response: LightMyRequestResponse | { statusCode: number, headers: Record<string, unknown>, body: string }, at = ''): void {
  expect(response.statusCode, `${at} ${response.body}`).toBe(403)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  // HEAD answers carry no body.
  if (response.body !== '') expect(JSON.parse(response.body)).toMatchObject({ code: 'DOCS_ERR_FORBIDDEN', status: 403 })
  expect(response.headers['www-authenticate']).toBe('Bearer realm="jsondocs", error="insufficient_scope"')
}

/** A 401 from the registry: `invalid_token` when credentials were sent, none when they were missing. */
export function expectUnauthorized (response: LightMyRequestResponse, sent: boolean, at = ''): void {
  expect(response.statusCode, `${at} ${response.body}`).toBe(401)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  if (response.body !== '') expect(response.json()).toMatchObject({ code: 'DOCS_ERR_UNAUTHORIZED', status: 401 })
  expect(response.headers['www-authenticate']).toBe(sent ? 'Bearer realm="jsondocs", error="invalid_token"' : 'Bearer realm="jsondocs"')
}
