import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { leaseScript } from '../../src/access/rate-limit.js'
import { createTokenScript } from '../../src/access/tokens.js'
import { buildTestApp } from '../helpers/app.js'

/* The access scripts: their protocols without Redis, then each called with FCALL on the real Redis. */

const app = await buildTestApp()
const redis = app.redis
const keyFor = (label: string) => `${app.keyPrefix}${label}:${randomUUID()}`

describe('create-token', () => {
  it.each<[string, number | undefined, string]>([
    ['with a time to live', 60_000, '60000'],
    ['without one', undefined, '']
  ])('is called with the token\'s key, then its hash, scopes, label, creation and ttl %s', (_, ttlMs, ttl) => {
    expect(createTokenScript.protocol.encode({ token: 't' }, { secretHash: 'ab', scopes: '[]', label: '', created: 1700000000000, ttlMs }))
      .toEqual({ keys: ['t'], args: ['ab', '[]', '', '1700000000000', ttl] })
  })

  it.each<[string, number | undefined, boolean]>([
    ['expires', 60_000, true],
    ['lives on', undefined, false]
  ])('stores a token that %s', async (_, ttlMs, expires) => {
    const token = keyFor('token')
    await createTokenScript.run(redis, { token }, { secretHash: 'ab', scopes: '[{"prefix":""}]', label: 'ci', created: 1700000000000, ttlMs })
    expect(await redis.send(token, ['HGETALL', token])).toEqual({ hash: 'ab', scopes: '[{"prefix":""}]', label: 'ci', created: '1700000000000' })
    expect(await redis.send<number>(token, ['PTTL', token]) > 0).toBe(expires)
  })
})

describe('rate-limit-lease', () => {
  it('is called with the counter, then the limit, the units wanted and the ttl', () => {
    expect(leaseScript.protocol.encode({ counter: 'c' }, { limit: 10, wanted: 3, ttlMs: 61_000 })).toEqual({ keys: ['c'], args: ['10', '3', '61000'] })
    expect(leaseScript.protocol.decode([2, 9])).toEqual({ granted: 2, used: 9 })
  })

  it.each<[string, number | undefined, number, { granted: number, used: number }]>([
    ['grants what is wanted from a new window', undefined, 3, { granted: 3, used: 3 }],
    ['grants what is left, no more', 8, 5, { granted: 2, used: 10 }],
    ['grants nothing once the limit is reached', 10, 1, { granted: 0, used: 10 }]
  ])('%s', async (_, used, wanted, reply) => {
    const counter = keyFor('lease')
    if (used !== undefined) await redis.send(counter, ['SET', counter, String(used)])
    expect(await leaseScript.run(redis, { counter }, { limit: 10, wanted, ttlMs: 61_000 })).toEqual(reply)
    if (used === undefined) expect(await redis.send<number>(counter, ['PTTL', counter])).toBeGreaterThan(60_000)
  })
})
