import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadEnvironment } from '../src/config.js'
import { startServer } from '../src/server.js'
import { whenDone } from './helpers/cleanup.js'
import { provisionLocalRedis } from './helpers/provision.js'

/**
 * Data folders earlier releases wrote, each with what that release answered for its documents: the
 * embedded Redis' append-only files, with documents (some with keys whose braces would make hash tags), a
 * time to live, a collection schema and a token.
 */
const fixtures = [
  { folder: 'redis-7.0-data', release: 'the release on Redis 7.0 with EVAL scripts (storage layout 1)' },
  { folder: 'release-9dfcdd0-data', release: 'the release before this one, on Redis 8 with the function library (storage layout 3)' }
]

interface Expected {
  adminToken: string
  readToken: string
  documents: Record<string, { body: string, etag: string }>
}

describe.each(fixtures)('upgrading from $release', ({ folder }) => {
  it('serves the documents it wrote unchanged, with their ETags, expiry, schema and tokens, from Redis 8 and the function library', async () => {
    provisionLocalRedis()
    const fixture = join(import.meta.dirname, 'fixtures', folder)
    const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as Expected
    const dataDir = mkdtempSync(join(tmpdir(), 'jsondocs-upgrade-'))
    whenDone(() => rmSync(dataDir, { recursive: true, force: true }))
    cpSync(join(fixture, 'redis'), join(dataDir, 'redis'), { recursive: true })
    const server = await startServer(loadEnvironment({
      PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT: 'off', AUTH_ADMIN_TOKEN: expected.adminToken
    }))
    whenDone(() => server.close())
    const admin = { authorization: `Bearer ${expected.adminToken}` }

    for (const [key, { body, etag }] of Object.entries(expected.documents)) {
      const read = await fetch(`${server.url}/docs/${encodeURIComponent(key)}`, { headers: admin })
      expect(read.status, key).toBe(200)
      expect(await read.text(), key).toBe(body)
      expect(read.headers.get('etag'), key).toBe(etag)
    }
    const expiring = await fetch(`${server.url}/ttl/temp:1`, { headers: admin })
    expect(((await expiring.json()) as { ttl: number }).ttl).toBeGreaterThan(3600)

    // The schema still guards its collection.
    const json = { ...admin, 'content-type': 'application/json' }
    expect((await fetch(`${server.url}/docs/accounts:2`, { method: 'PUT', headers: json, body: '{"balance":"ten"}' })).status).toBe(422)
    expect((await fetch(`${server.url}/docs/accounts:2`, { method: 'PUT', headers: json, body: '{"balance":1}' })).status).toBe(201)

    // The token still reads its prefix, and nothing else.
    const token = { authorization: `Bearer ${expected.readToken}` }
    expect((await fetch(`${server.url}/docs/users:1`, { headers: token })).status).toBe(200)
    expect((await fetch(`${server.url}/docs/accounts:1`, { headers: token })).status).toBe(403)

    // A write conditional on the old ETag lands, and the version moves on.
    const { etag } = expected.documents['users:1']!
    const written = await fetch(`${server.url}/docs/users:1/added`, { method: 'PUT', headers: { ...json, 'if-match': etag }, body: 'false' })
    expect(written.status).toBe(200)
    expect(written.headers.get('etag')).not.toBe(etag)
  })
})
