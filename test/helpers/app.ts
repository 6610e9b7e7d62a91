import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { inject } from 'vitest'
import { whenDone } from './cleanup.js'
import { buildApp } from '../../src/app.js'
import type { AppConfig } from '../../src/config.js'
import { createRedisClient, type RedisClient } from '../../src/redis/plugin.js'

export function testConfig (overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    redis: inject('redis'),
    keyPrefix: `test:${randomUUID()}:`,
    collectionSeparator: ':',
    bodyLimit: 1024 * 1024,
    maxDepth: 100,
    redisTimeoutMs: 2000,
    retryAfterSeconds: 1,
    cacheMaxEntries: 1000,
    logLevel: 'silent',
    logRequests: false,
    ...overrides
  }
}

/** An app on the suite's Redis with a key prefix of its own, closed after the file's tests. */
export async function buildTestApp (overrides: Partial<AppConfig> = {}): Promise<FastifyInstance & { keyPrefix: string }> {
  const config = testConfig(overrides)
  const app = await buildApp(config)
  whenDone(() => app.close())
  return Object.assign(app, { keyPrefix: config.keyPrefix })
}

/** A plain client on the suite's Redis, to look behind the service's back. */
export async function connectRedis (): Promise<RedisClient> {
  const client = createRedisClient({ connection: inject('redis'), commandTimeoutMs: 5000 })
  await client.connect()
  whenDone(() => client.close())
  return client
}

type Headers = Record<string, string>

/** Sends raw JSON text, exactly as given. */
export function send (app: FastifyInstance, method: 'PUT' | 'PATCH' | 'POST', url: string, text: string,
  headers: Headers = {}, contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json') {
  return app.inject({ method, url, payload: text, headers: { 'content-type': contentType, ...headers } })
}

export function put (app: FastifyInstance, url: string, value: unknown, headers: Headers = {}) {
  return send(app, 'PUT', url, JSON.stringify(value), headers)
}

export function patch (app: FastifyInstance, url: string, value: unknown, headers: Headers = {}) {
  return send(app, 'PATCH', url, JSON.stringify(value), headers)
}

/** A JSON Patch (RFC 6902) request. */
export function jsonPatch (app: FastifyInstance, url: string, operations: unknown[], headers: Headers = {}) {
  return send(app, 'PATCH', url, JSON.stringify(operations), headers, 'application/json-patch+json')
}

/** POST of one operation or a list of them. */
export function operate (app: FastifyInstance, url: string, operations: unknown, headers: Headers = {}) {
  return send(app, 'POST', url, JSON.stringify(operations), headers)
}

export function get (app: FastifyInstance, url: string, headers: Headers = {}) {
  return app.inject({ method: 'GET', url, headers })
}

export function remove (app: FastifyInstance, url: string, headers: Headers = {}) {
  return app.inject({ method: 'DELETE', url, headers })
}

/** A document key unique to the calling test. */
export function uniqueKey (label = 'doc'): string {
  return `${label}-${randomUUID()}`
}
