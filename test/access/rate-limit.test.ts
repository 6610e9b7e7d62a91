import type { FastifyInstance } from 'fastify'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { parseRateLimit } from '../../src/access/rate-limit.js'
import { loadEnvironment } from '../../src/config.js'
import { buildTestApp, connectRedis } from '../helpers/app.js'
import { startOwnRedis } from '../helpers/local-redis.js'
import { ADMIN_TOKEN, bearer, tokenFor } from './guarded-app.js'

const READ_ALL = [{ prefix: '', rights: ['read' as const] }]

/**
 * Apps with access enforced and this limit, anonymous requests reading everything; sharing a key prefix when given one.
 * Windows are fixed and aligned to the clock: tests that count use hour-long ones, which a test is most
 * unlikely to straddle (a minute-long one it may, on a slow machine, and then count from zero again).
 */
function limitedApp (limit: string, keyPrefix?: string) {
  return buildTestApp({
    ...(keyPrefix === undefined ? {} : { keyPrefix }),
    rateLimit: parseRateLimit(limit)!,
    access: { adminToken: ADMIN_TOKEN, anonymousScopes: READ_ALL, open: false }
  })
}

async function statuses (app: FastifyInstance, count: number, headers: Record<string, string> = {}, url = '/docs/some:doc') {
  const answers = []
  for (let index = 0; index < count; index++) answers.push(await app.inject({ method: 'GET', url, headers }))
  return answers
}

describe('RATE_LIMIT', () => {
  it('answers 429 problem+json with Retry-After past the limit, and the RateLimit fields on every answer', async () => {
    const app = await limitedApp('5/hour')
    const answers = await statuses(app, 7)
    expect(answers.map((answer) => answer.statusCode)).toEqual([404, 404, 404, 404, 404, 429, 429])
    expect(answers[0]!.headers['ratelimit-policy']).toBe('"default";q=5;w=3600')
    expect(answers[0]!.headers['ratelimit']).toMatch(/^"default";r=4;t=\d+$/)
    expect(answers[4]!.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/)
    const refused = answers[5]!
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.json()).toMatchObject({ code: 'DOCS_ERR_RATE_LIMITED', status: 429 })
    const retryAfter = Number(refused.headers['retry-after'])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(3600)
  })

  it('counts each token apart from the address and from other tokens; the admin and public routes are not counted', async () => {
    const app = await limitedApp('3/hour')
    const one = await tokenFor(app, READ_ALL)
    const two = await tokenFor(app, READ_ALL)
    expect((await statuses(app, 4, bearer(one.token))).map((answer) => answer.statusCode)).toEqual([404, 404, 404, 429])
    expect((await statuses(app, 3, bearer(two.token))).map((answer) => answer.statusCode)).toEqual([404, 404, 404])
    expect((await statuses(app, 3)).map((answer) => answer.statusCode)).toEqual([404, 404, 404])
    expect((await statuses(app, 5, bearer(ADMIN_TOKEN))).every((answer) => answer.statusCode === 404)).toBe(true)
    expect((await statuses(app, 5, {}, '/livez')).every((answer) => answer.statusCode === 200)).toBe(true)
    expect((await statuses(app, 1)).map((answer) => answer.statusCode)).toEqual([429])
  })

  it('counts refused credentials by address, so guessing tokens is limited too', async () => {
    const app = await limitedApp('3/hour')
    const guesses = await statuses(app, 5, bearer(`jdt.${'0'.repeat(32)}.${'A'.repeat(43)}`))
    expect(guesses.map((answer) => answer.statusCode)).toEqual([401, 401, 401, 429, 429])
    expect((await statuses(app, 1)).map((answer) => answer.statusCode)).toEqual([429])
  })

  it('is one budget for every instance on the same Redis: 10 an hour, 6 sent to each, 10 pass', async () => {
    const keyPrefix = `test:${randomUUID()}:`
    const [first, second] = [await limitedApp('10/hour', keyPrefix), await limitedApp('10/hour', keyPrefix)]
    const token = (await tokenFor(first, READ_ALL)).token
    const answers = [...await statuses(first, 6, bearer(token)), ...await statuses(second, 6, bearer(token))]
    expect(answers.filter((answer) => answer.statusCode === 404)).toHaveLength(10)
    expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(2)
  })

  it('keeps its counts in Redis keys that expire with their window', async () => {
    const app = await limitedApp('100/hour')
    await statuses(app, 2)
    const redis = await connectRedis()
    const keys = await redis.sendCommand<string[]>(['KEYS', `${app.keyPrefix}*ratelimit*`])
    expect(keys).toHaveLength(1)
    const ttl = await redis.sendCommand<number>(['PTTL', keys[0]!])
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(3_601_000)
  })

  it('lets a request through when Redis cannot lease it a unit: the request then meets Redis itself (503)', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({
      redis: { socketPath: redis.socketPath },
      redisTimeoutMs: 300,
      rateLimit: parseRateLimit('5/minute')!,
      access: { adminToken: ADMIN_TOKEN, anonymousScopes: READ_ALL, open: false }
    })
    expect((await statuses(app, 1)).map((answer) => answer.statusCode)).toEqual([404])
    await redis.stop()
    const answer = (await statuses(app, 1))[0]!
    expect(answer.statusCode).toBe(503)
    expect(answer.json()).toMatchObject({ code: 'DOCS_ERR_REDIS_UNAVAILABLE' })
  })

  it('keeps a budget per right when given one: writes past theirs are refused while reads go on', async () => {
    const app = await buildTestApp({
      rateLimit: parseRateLimit('4/hour,write=2/hour')!,
      access: { adminToken: ADMIN_TOKEN, anonymousScopes: [{ prefix: '', rights: ['read', 'write'] }], open: false }
    })
    const key = `rl:${randomUUID()}`
    const writes = []
    for (let n = 0; n < 3; n++) writes.push(await app.inject({ method: 'PUT', url: `/docs/${key}`, payload: String(n), headers: { 'content-type': 'application/json' } }))
    expect(writes.map((answer) => answer.statusCode)).toEqual([201, 200, 429])
    expect(writes[0]!.headers['ratelimit-policy']).toBe('"write";q=2;w=3600')
    expect(writes[2]!.json().detail).toContain('requests needing the "write" right')
    const reads = await statuses(app, 5, {}, `/docs/${key}`)
    expect(reads.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 429])
    expect(reads[0]!.headers['ratelimit-policy']).toBe('"default";q=4;w=3600')
    expect(reads[0]!.body).toBe('1')
  })

  it('takes <count>/<second|minute|hour>, budgets per right, or off, and refuses anything else', () => {
    expect(parseRateLimit('600/minute')).toEqual(new Map([['default', { name: 'default', count: 600, windowMs: 60_000, windowSeconds: 60 }]]))
    expect(parseRateLimit(' read = 10/second, write=60/minute ')).toEqual(new Map([
      ['read', { name: 'read', count: 10, windowMs: 1000, windowSeconds: 1 }],
      ['write', { name: 'write', count: 60, windowMs: 60_000, windowSeconds: 60 }]
    ]))
    expect(parseRateLimit('off')).toBeUndefined()
    expect(loadEnvironment({}).RATE_LIMIT).toBe('600/minute')
    for (const bad of ['0/minute', '10/day', 'ten/minute', '10', '-1/second', '1e3/second', 'write=1/minute,write=2/minute',
      '5/minute,6/minute', 'admin=1/minute', 'read=/minute', '5/minute,', 'off,5/minute']) {
      expect(() => loadEnvironment({ RATE_LIMIT: bad }), bad).toThrow(/RATE_LIMIT/)
    }
  })
})
