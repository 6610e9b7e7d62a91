import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isLoopback } from '../../src/access/settings.js'
import { loadEnvironment } from '../../src/config.js'
import { spawnService } from '../helpers/service-process.js'

const ADMIN = 'an-admin-token-of-at-least-32-characters'

describe('secure by default', () => {
  it('with no authentication configured, starts only on a loopback address', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.1.2.3']) expect(loadEnvironment({ HOST: host }).HOST).toBe(host)
    for (const host of ['0.0.0.0', '::', '10.0.0.7', 'example.org', '127.0.0.1.example.org']) {
      expect(isLoopback(host), host).toBe(false)
      expect(() => loadEnvironment({ HOST: host }), host).toThrow(/No authentication is configured.*AUTH_DISABLED=true/)
    }
  })

  it('starts on any address with an admin token, JWT settings or anonymous scopes, or AUTH_DISABLED=true', () => {
    expect(loadEnvironment({ HOST: '0.0.0.0', AUTH_ADMIN_TOKEN: ADMIN }).AUTH_ADMIN_TOKEN).toBe(ADMIN)
    expect(loadEnvironment({ HOST: '0.0.0.0', AUTH_ANONYMOUS_SCOPES: '[{"prefix":"public:","rights":["read"]}]' }).HOST).toBe('0.0.0.0')
    expect(loadEnvironment({ HOST: '0.0.0.0', AUTH_DISABLED: 'true' }).AUTH_DISABLED).toBe(true)
  })

  it('refuses settings that contradict each other or are too weak', () => {
    expect(() => loadEnvironment({ AUTH_ADMIN_TOKEN: ADMIN, AUTH_DISABLED: 'true' })).toThrow(/AUTH_DISABLED/)
    expect(() => loadEnvironment({ AUTH_ADMIN_TOKEN: 'short' })).toThrow(/AUTH_ADMIN_TOKEN/)
    expect(() => loadEnvironment({ AUTH_ANONYMOUS_SCOPES: '[{"prefix":"a","rights":["all"]}]' })).toThrow(/AUTH_ANONYMOUS_SCOPES/)
  })

  it('the service refuses to start, with a sentence and status 1, before starting its Redis', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'jsondocs-exposed-'))
    const service = spawnService(dataDir, { HOST: '0.0.0.0' })
    expect(await service.exited).toBe(1)
    expect(service.output()).toMatch(/jsondocs could not start: No authentication is configured/)
    expect(existsSync(join(dataDir, 'redis'))).toBe(false)
  })
})
