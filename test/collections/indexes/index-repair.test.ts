import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, onEveryMaster, put } from '../../helpers/app.js'
import { eventually } from '../../helpers/local-redis.js'
import { tagOfSlot } from '../../../src/redis/slots.js'
import { fieldsOfReply } from '../../../src/collections/indexes/search-replies.js'
import { indexReady, query } from './helpers.js'

/*
 * Declaring an index is two steps: its record, then FT.CREATE on every master. Here Redis refuses the second
 * for real (an index of the very name is there already), or its index goes missing behind the service (a
 * crash between the steps, an FT.DROPINDEX): the answers are clear problems, and the same PUT mends it.
 */

const app = await buildTestApp()
const other = await buildTestApp({ keyPrefix: app.keyPrefix })
const redis = await connectRedis()

const urlOf = (collection: string) => `/collections/${collection}/index`

/** The names of a collection's RediSearch indexes on each master, by the masters' lowest slots ('' on one Redis). */
async function indexNames (collection: string): Promise<Map<string, string[]>> {
  const names = new Map<string, string[]>()
  for (const master of await app.redis.masters()) {
    const all = (await master.sender.send<string[]>(undefined, ['FT._LIST'])).map(String)
    names.set(master.id, all.filter((name) => name.startsWith(app.keyPrefix) && name.endsWith(`\u001findex\u001f${collection}`, name.lastIndexOf('\u001f'))))
  }
  return names
}

/** The name the service gives a generation of a collection's index on the master of that lowest slot. */
function nameOf (masterId: string, collection: string, generation: number): string {
  const tag = app.redis.isCluster ? `{${tagOfSlot(Number(masterId))}}` : ''
  return `${app.keyPrefix}${tag}\u001findex\u001f${collection}\u001f${generation}`
}

/** Drops a collection's RediSearch indexes on every master, behind the service's back. */
async function dropBehind (collection: string): Promise<void> {
  const masters = await app.redis.masters()
  for (const [id, names] of await indexNames(collection)) {
    for (const name of names) await masters.find((master) => master.id === id)!.sender.send(undefined, ['FT.DROPINDEX', name])
  }
}

/** Makes an index of the name the service will give the next generation, on the first master only. */
async function blockNext (collection: string, generation: number): Promise<() => Promise<unknown>> {
  const [first] = await app.redis.masters()
  const name = nameOf(first!.id, collection, generation)
  await first!.sender.send(undefined, ['FT.CREATE', name, 'ON', 'JSON', 'PREFIX', '1', `${app.keyPrefix}elsewhere:`, 'SCHEMA', '$.x', 'AS', 'x', 'TAG'])
  return () => first!.sender.send(undefined, ['FT.DROPINDEX', name])
}

async function expectProblem (response: Awaited<ReturnType<FastifyInstance['inject']>>, code: string, detail: RegExp) {
  expect(response.statusCode, response.body).toBe(409)
  expect(response.json().code).toBe(code)
  expect(response.json().detail).toMatch(detail)
}

async function seed (collection: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) await put(app, `/docs/${collection}:${index}`, { s: `v${index % 2}`, t: 'y' })
}

async function countOf (collection: string, filter: unknown): Promise<number> {
  const response = await query(app, collection, { filter }, { prefer: 'count=exact' })
  expect(response.statusCode, response.body).toBe(200)
  return response.json().count
}

describe('a PUT whose index Redis refuses to create', () => {
  it('answers 409, declares nothing, and the same PUT creates the index once the cause is gone', async () => {
    await seed('refused', 6)
    const unblock = await blockNext('refused', 1)
    const fields = [{ pointer: '/s', type: 'tag' }]
    await expectProblem(await put(app, urlOf('refused'), { fields }), 'DOCS_ERR_INDEX_MISSING', /could not create the index.*nothing was declared/)
    expect((await get(app, urlOf('refused'))).statusCode).toBe(404)
    expect((await query(app, 'refused', { filter: { '/s': 'v1' } })).statusCode).toBe(404)
    // Only the blocking index is left: what the other masters made was dropped.
    expect([...(await indexNames('refused')).values()].flat()).toHaveLength(1)
    await unblock()
    await indexReady(app, 'refused', fields)
    expect(await countOf('refused', { '/s': 'v1' })).toBe(3)
    expect([...(await indexNames('refused')).values()].every((names) => names.length === 1)).toBe(true)
  })

  it('leaves the previous definition declared and answering', async () => {
    await seed('kept', 4)
    await indexReady(app, 'kept', [{ pointer: '/s', type: 'tag' }])
    const unblock = await blockNext('kept', 2)
    await expectProblem(await put(app, urlOf('kept'), { fields: [{ pointer: '/t', type: 'tag' }] }), 'DOCS_ERR_INDEX_MISSING', /nothing was declared/)
    const state = await get(app, urlOf('kept'))
    expect(state.statusCode).toBe(200)
    expect(state.json()).toMatchObject({ fields: [{ pointer: '/s', type: 'tag' }], state: 'ready' })
    expect(await countOf('kept', { '/s': 'v0' })).toBe(2)
    await unblock()
    await indexReady(app, 'kept', [{ pointer: '/t', type: 'tag' }])
    expect(await countOf('kept', { '/t': 'y' })).toBe(4)
  })
})

describe('an index missing from Redis while its record names it', () => {
  it('answers 409 to queries and reads, and is rebuilt by a PUT of the same definition', async () => {
    await seed('dropped', 4)
    const fields = [{ pointer: '/s', type: 'tag' }]
    await indexReady(app, 'dropped', fields)
    expect(await countOf('dropped', { '/s': 'v0' })).toBe(2)
    await dropBehind('dropped')
    for (const instance of [app, other]) {
      await expectProblem(await query(instance, 'dropped', { filter: { '/s': 'v0' } }), 'DOCS_ERR_INDEX_MISSING', /PUT its definition again/)
      await expectProblem(await get(instance, urlOf('dropped')), 'DOCS_ERR_INDEX_MISSING', /missing from Redis/)
    }
    const aggregated = await app.inject({ method: 'POST', url: '/collections/dropped/aggregate', payload: { groupBy: ['/s'] } })
    await expectProblem(aggregated, 'DOCS_ERR_INDEX_MISSING', /missing from Redis/)
    await indexReady(app, 'dropped', fields)
    expect(await countOf('dropped', { '/s': 'v0' })).toBe(2)
    expect((await query(other, 'dropped', { filter: { '/s': 'v1' } })).json().items).toHaveLength(2)
  })

  it('is rebuilt once when two instances PUT the same definition at once', async () => {
    await seed('raced', 4)
    const fields = [{ pointer: '/s', type: 'tag' }]
    await indexReady(app, 'raced', fields)
    await dropBehind('raced')
    const answers = await Promise.all([put(app, urlOf('raced'), { fields }), put(other, urlOf('raced'), { fields })])
    for (const answer of answers) expect([200, 202], answer.body).toContain(answer.statusCode)
    await indexReady(other, 'raced', fields)
    expect(await countOf('raced', { '/s': 'v1' })).toBe(2)
    expect([...(await indexNames('raced')).values()].every((names) => names.length === 1)).toBe(true)
  })

  it('of a changed definition declared but never created (cut short between the steps) keeps the previous one answering, and is made by its PUT', async () => {
    await seed('cut', 4)
    await indexReady(app, 'cut', [{ pointer: '/s', type: 'tag' }])
    // The record as the first step leaves it, with no FT.CREATE after: found by its name, written as the script writes it.
    const keys = (await onEveryMaster<string[]>(redis, ['KEYS', `${app.keyPrefix}*\u001findex\u001fcut`])).flat()
    expect(keys).toHaveLength(1)
    const changed = [{ pointer: '/t', type: 'tag' }]
    await redis.sendCommand(['HSET', keys[0]!, 'definition', JSON.stringify({ fields: changed }), 'generation', '2', 'building', '2'])
    await expectProblem(await get(app, urlOf('cut')), 'DOCS_ERR_INDEX_MISSING', /PUT its definition again/)
    expect(await countOf('cut', { '/s': 'v1' })).toBe(2)
    await indexReady(app, 'cut', changed)
    expect(await countOf('cut', { '/t': 'y' })).toBe(4)
    expect([...(await indexNames('cut')).values()].every((names) => names.length === 1)).toBe(true)
  })

  it('of a first definition never created answers 409 to queries until its PUT makes it', async () => {
    await seed('first', 2)
    const unblock = await blockNext('first', 1)
    const fields = [{ pointer: '/s', type: 'tag' }]
    expect((await put(app, urlOf('first'), { fields })).statusCode).toBe(409)
    await unblock()
    // As a crash before FT.CREATE leaves it: the record of a declaration, no index.
    const keys = (await onEveryMaster<string[]>(redis, ['KEYS', `${app.keyPrefix}*\u001findex\u001ffirst`])).flat()
    await redis.sendCommand(['HSET', keys[0]!, 'definition', JSON.stringify({ fields }), 'generation', '2', 'building', '2'])
    await expectProblem(await query(app, 'first', { filter: { '/s': 'v0' } }), 'DOCS_ERR_INDEX_MISSING', /PUT its definition again/)
    await indexReady(app, 'first', fields)
    expect(await countOf('first', { '/s': 'v0' })).toBe(1)
  })
})

describe('an index made by an earlier release, without the companion attributes of its tag fields', () => {
  /** FT.INFO of each of the collection's RediSearch indexes (of one generation, if given), read behind the service. */
  async function infos (collection: string, generation?: string): Promise<Array<Map<string, unknown>>> {
    const masters = await app.redis.masters()
    const all: Array<Map<string, unknown>> = []
    for (const [id, names] of await indexNames(collection)) {
      const master = masters.find((candidate) => candidate.id === id)!
      for (const name of names) {
        if (generation === undefined || name.endsWith(`\u001f${generation}`)) all.push(fieldsOfReply(await master.sender.send<unknown>(undefined, ['FT.INFO', name])))
      }
    }
    return all
  }

  const attributes = async (collection: string, generation?: string) => (await infos(collection, generation)).map((info) => (info.get('attributes') as unknown[]).length)

  /** The collection's index record's key. */
  const recordOf = async (collection: string) => (await onEveryMaster<string[]>(redis, ['KEYS', `${app.keyPrefix}*\u001findex\u001f${collection}`])).flat()[0]!

  /** Makes the collection's index and its record as the earlier release did: the tag field alone, no `companions` mark. */
  async function asEarlierRelease (collection: string): Promise<void> {
    const masters = await app.redis.masters()
    for (const [id, names] of await indexNames(collection)) {
      const master = masters.find((candidate) => candidate.id === id)!
      for (const name of names) {
        await master.sender.send(undefined, ['FT.DROPINDEX', name])
        await master.sender.send(undefined, ['FT.CREATE', name, 'ON', 'JSON', 'PREFIX', '1', `${app.keyPrefix}${collection}:`, 'STOPWORDS', '0', 'SCHEMA',
          '$["s"]', 'AS', 'f0', 'TAG', 'SEPARATOR', '\u001f', 'CASESENSITIVE', 'INDEXEMPTY', 'INDEXMISSING'])
      }
    }
    const record = await recordOf(collection)
    await redis.sendCommand(['HDEL', record, 'companions'])
    expect((await redis.sendCommand<string[]>(['HKEYS', record])).map(String).sort()).toEqual(['active', 'activeDefinition', 'definition', 'generation'])
    expect(new Set(await attributes(collection))).toEqual(new Set([1]))
    await eventually(async () => (await infos(collection)).every((info) => Number(info.get('indexing')) === 0 && Number(info.get('percent_indexed')) === 1))
  }

  it('answers a broad query at once on a new instance, is rebuilt with them by the service, and then refuses what RediSearch indexes in part', async () => {
    // More than MAX_CONTROL_MATCHES on some master, whatever the slots.
    const broad = 1000 * (await app.redis.masters()).length + 100
    const items = Array.from({ length: broad }, (_, at) => ({ key: `earlier:${at}`, value: { s: 'v' } }))
    items.push({ key: 'earlier:nul', value: { s: 'a\u0000b' } }, { key: 'earlier:a', value: { s: 'a' } })
    for (let at = 0; at < items.length; at += 500) {
      const written = await app.inject({ method: 'POST', url: '/batch/write', payload: JSON.stringify({ items: items.slice(at, at + 500) }),
        headers: { 'content-type': 'application/json' } })
      expect(written.statusCode, written.body).toBe(200)
    }
    const fields = [{ pointer: '/s', type: 'tag' }]
    await indexReady(app, 'earlier', fields)
    await asEarlierRelease('earlier')

    // Two new instances start beside each other: both answer, both start the rebuild, one declares it.
    const started = [await buildTestApp({ keyPrefix: app.keyPrefix }), await buildTestApp({ keyPrefix: app.keyPrefix })]
    for (const response of await Promise.all(started.map((instance) => query(instance, 'earlier', { filter: { '/s': 'v' }, limit: 1 }, { prefer: 'count=exact' })))) {
      expect(response.statusCode, response.body).toBe(200)
      expect(response.json().count).toBe(broad)
    }
    // Queries go on meanwhile, as they would: the rebuild is promoted by them once ready (and started again by them after a failure).
    const record = await recordOf('earlier')
    await eventually(async () => {
      const refused = (await query(started[0]!, 'earlier', { filter: { '/s': 'a' } })).statusCode === 422
      const [active, companions] = (await redis.sendCommand<string[]>(['HMGET', record, 'active', 'companions'])).map(String)
      const counts = await attributes('earlier', active)
      return refused && active === companions && counts.length === (await app.redis.masters()).length && counts.every((count) => count === 2)
    }, 30_000)

    for (const instance of started) {
      await eventually(async () => (await query(instance, 'earlier', { filter: { '/s': 'a' } })).statusCode === 422)
      const refused = await query(instance, 'earlier', { filter: { '/s': 'a' } })
      expect(refused.json().code).toBe('DOCS_ERR_UNSEARCHABLE_VALUE')
      expect(refused.json().documents).toEqual([{ key: 'earlier:nul', pointer: '/s' }])
      const answered = await query(instance, 'earlier', { filter: { '/s': 'v' }, limit: 1 }, { prefer: 'count=exact' })
      expect(answered.statusCode, answered.body).toBe(200)
      expect(answered.json().count).toBe(broad)
    }
    expect((await get(app, urlOf('earlier'))).json().state).toBe('ready')
    // Rebuilt once: the same definition is the latest, made with its companions.
    expect((await put(app, urlOf('earlier'), { fields })).statusCode).toBe(200)
  }, 60_000)

  it('of a changed definition an earlier release still running declares, answers once ready, and is rebuilt with them', async () => {
    await put(app, '/docs/rolling:nul', { s: 'a\u0000b', t: 'x' })
    await put(app, '/docs/rolling:a', { s: 'a', t: 'x' })
    await indexReady(app, 'rolling', [{ pointer: '/t', type: 'tag' }])
    // What the earlier release's PUT of another definition does: its record, then its index, the tag field alone.
    const record = await recordOf('rolling')
    const fields = [{ pointer: '/s', type: 'tag' }]
    await redis.sendCommand(['HSET', record, 'definition', JSON.stringify({ fields }), 'generation', '2', 'building', '2', 'declaredAt', String(Date.now())])
    for (const master of await app.redis.masters()) {
      await master.sender.send(undefined, ['FT.CREATE', nameOf(master.id, 'rolling', 2), 'ON', 'JSON', 'PREFIX', '1', `${app.keyPrefix}rolling:`, 'STOPWORDS', '0',
        'SCHEMA', '$["s"]', 'AS', 'f0', 'TAG', 'SEPARATOR', '\u001f', 'CASESENSITIVE', 'INDEXEMPTY', 'INDEXMISSING'])
    }
    // This release promotes it once ready, answers as the earlier release did, and rebuilds it.
    await eventually(async () => (await query(other, 'rolling', { filter: { '/s': 'a' } })).statusCode === 422, 30_000)
    const refused = await query(other, 'rolling', { filter: { '/s': 'a' } })
    expect(refused.json().documents).toEqual([{ key: 'rolling:nul', pointer: '/s' }])
    expect((await redis.sendCommand<string[]>(['HMGET', record, 'active', 'companions'])).map(String)).toEqual(['3', '3'])
    expect(new Set(await attributes('rolling', '3'))).toEqual(new Set([2]))
  }, 60_000)
})
