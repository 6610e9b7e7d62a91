import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { deleteSchemaScript, mirrorScript, putSchemaScript } from '../../src/collections/storage.js'
import { buildTestApp } from '../helpers/app.js'

/* The schema storage's scripts: their protocols without Redis, then each called with FCALL on the real Redis. */

const app = await buildTestApp()
const redis = app.redis

/** A schema hash and a collection set in one slot. */
function keysFor () {
  const tag = `${app.keyPrefix}{${randomUUID()}}`
  return { schemaKey: `${tag}schema`, collections: `${tag}collections` }
}

describe('the schema scripts\' protocols', () => {
  it.each<[string, { keys: string[], args: string[] }, { keys: string[], args: string[] }]>([
    ['put', putSchemaScript.protocol.encode({ schemaKey: 'h', collections: 's' }, { collection: 'c', schema: '{}', ifMatch: '"1"', ifNoneMatch: '' }),
      { keys: ['h', 's'], args: ['c', '{}', '"1"', ''] }],
    ['delete', deleteSchemaScript.protocol.encode({ schemaKey: 'h', collections: 's' }, { collection: 'c', ifMatch: '', ifNoneMatch: '*' }),
      { keys: ['h', 's'], args: ['c', '', '*'] }],
    ['mirror', mirrorScript.protocol.encode({ mirror: 'm' }, { others: 0, othersThenPairs: ['a', '1:2', 'b', '3:'] }),
      { keys: ['m'], args: ['0', 'a', '1:2', 'b', '3:'] }],
    ['mirror with others', mirrorScript.protocol.encode({ mirror: 'm' }, { others: 2, othersThenPairs: ['n', 'o', 'a', '1:2'] }),
      { keys: ['m'], args: ['2', 'n', 'o', 'a', '1:2'] }]
  ])('%s', (_, encoded, expected) => {
    expect(encoded).toEqual(expected)
  })

  it.each<[unknown, unknown]>([
    [['created', '17'], { status: 'created', revision: '17' }],
    [['precondition'], { status: 'precondition' }],
    [['notfound'], { status: 'notfound' }]
  ])('parses %j', (raw, parsed) => {
    expect(putSchemaScript.protocol.decode(raw)).toEqual(parsed)
  })
})

describe('put-schema and delete-schema', () => {
  it.each<[string, boolean, { ifMatch?: string, ifNoneMatch?: string }, string]>([
    ['creates', false, {}, 'created'],
    ['replaces', true, {}, 'ok'],
    ['creates only what is new If-None-Match: *', true, { ifNoneMatch: '*' }, 'precondition'],
    ['replaces only what exists If-Match: *', false, { ifMatch: '*' }, 'precondition']
  ])('put %s', async (_, exists, conditions, status) => {
    const keys = keysFor()
    if (exists) await putSchemaScript.run(redis, keys, { collection: 'c', schema: '{}', ifMatch: '', ifNoneMatch: '' })
    const reply = await putSchemaScript.run(redis, keys, { collection: 'c', schema: '{"type":"object"}', ifMatch: '', ifNoneMatch: '', ...conditions })
    expect(reply.status).toBe(status)
    if (status === 'precondition') return
    expect(reply.revision).toMatch(/^\d{16}$/)
    expect(await redis.send(keys.schemaKey, ['HMGET', keys.schemaKey, 'schema', 'revision', 'generation']))
      .toEqual(['{"type":"object"}', reply.revision, reply.revision])
    expect(await redis.send(keys.collections, ['SMEMBERS', keys.collections])).toEqual(['c'])
  })

  it.each<[string, boolean, string, string]>([
    ['removes, keeping a newer generation', true, '', 'ok'],
    ['misses a schema that is not there', false, '', 'notfound'],
    ['keeps a schema of another revision', true, '"1"', 'precondition']
  ])('delete %s', async (_, exists, ifMatch, status) => {
    const keys = keysFor()
    const put = exists ? await putSchemaScript.run(redis, keys, { collection: 'c', schema: '{}', ifMatch: '', ifNoneMatch: '' }) : undefined
    const reply = await deleteSchemaScript.run(redis, keys, { collection: 'c', ifMatch, ifNoneMatch: '' })
    expect(reply.status).toBe(status)
    if (status !== 'ok') return
    expect(BigInt(reply.revision!)).toBeGreaterThan(BigInt(put!.revision!))
    expect(await redis.send(keys.schemaKey, ['HGETALL', keys.schemaKey])).toEqual({ generation: reply.revision })
    expect(await redis.send(keys.collections, ['SCARD', keys.collections])).toBe(0)
  })
})

describe('mirror-schemas', () => {
  it.each<[string, string | undefined, string, string]>([
    ['sets what the mirror lacks', undefined, '5:5', '5:5'],
    ['moves on to a newer generation', '4:4', '5:', '5:'],
    ['never goes back to an older one', '6:6', '5:5', '6:6'],
    ['keeps the same generation', '5:5', '5:', '5:5']
  ])('%s', async (_, held, state, after) => {
    const mirror = `${app.keyPrefix}{${randomUUID()}}mirror`
    if (held) await redis.send(mirror, ['HSET', mirror, 'c', held])
    await mirrorScript.run(redis, { mirror }, { others: 0, othersThenPairs: ['c', state, 'd', '1:1'] })
    expect(await redis.send(mirror, ['HGETALL', mirror])).toEqual({ c: after, d: '1:1' })
  })

  it('updates the other mirrors it is given, of other slots of the same node, in the same call', async () => {
    const mirror = `${app.keyPrefix}{${randomUUID()}}mirror`
    // On a cluster both must be on one node: other keys are tried until one is (at most a few tries).
    let other: string | undefined
    for (let attempt = 0; attempt < 64; attempt++) {
      const candidate = `${app.keyPrefix}{${randomUUID()}}mirror`
      const done = await mirrorScript.run(redis, { mirror }, { others: 1, othersThenPairs: [candidate, 'c', '2:2'] }).then(() => true, (error: Error) => {
        expect(error.message).toMatch(/non local key/)
        return false
      })
      if (done) {
        other = candidate
        break
      }
    }
    expect(other, 'a key of another slot on the same node').toBeDefined()
    for (const key of [mirror, other!]) expect(await redis.send(key, ['HGETALL', key])).toEqual({ c: '2:2' })
  })
})
