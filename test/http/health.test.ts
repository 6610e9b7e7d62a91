import { describe, expect, it } from 'vitest'
import { buildTestApp, get, uniqueKey } from '../helpers/app.js'
import { expectOk } from './probe-answers.js'

// Probes against Redis servers of the test's own (down, paused, flushed, without modules): health-own-redis.test.ts.
describe('GET /readyz and /health', () => {
  it.each(['/readyz', '/health'])('%s: 200 when Redis answers with RedisJSON and every script loaded', async (url) => {
    const app = await buildTestApp()
    expectOk(await get(app, url))
  })
})

describe('probes stay public and cheap', () => {
  it('need no credentials even when an admin token is set', async () => {
    const app = await buildTestApp({ adminToken: 'an-admin-token-of-32-characters!' })
    for (const url of ['/livez', '/readyz', '/health']) expectOk(await get(app, url))
    expect((await get(app, `/docs/${uniqueKey()}`)).statusCode).toBe(404)
  })
})
