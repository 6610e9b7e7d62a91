import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, bearer, buildGuardedApp, tokenFor } from '../../access/guarded-app.js'
import { buildTestApp, get, put } from '../../helpers/app.js'
import { eventually } from '../../helpers/local-redis.js'
import { referenceAggregate, type AggregateBody, type Group, type Metric } from './aggregate-reference.js'
import { INDEX_READY_MS, indexReady, refusedForUnsearchable } from './helpers.js'
import { FIELDS, random, randomFilter, uniqueDocs, WIDE } from './random-queries.js'
import { comparedTags, matches, type Doc } from './reference.js'

/*
 * Aggregations: random filters, groupings and metrics over random documents agree with a reference computed
 * from the documents (written from docs/queries.md), through the admin's credentials and a scoped token's, or
 * are refused for documents holding tag values RediSearch indexes in part (U+0000, U+001F), which they name.
 */

const app = await buildGuardedApp()
const admin = bearer(ADMIN_TOKEN)
const TYPES = { '/s': 'tag', '/tags': 'tag', '/b': 'boolean' } as const

async function aggregate (collection: string, body: unknown, headers: Record<string, string> = admin) {
  return await app.inject({
    method: 'POST', url: `/collections/${encodeURIComponent(collection)}/aggregate`, payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers }
  })
}

async function load (collection: string, docs: readonly Doc[]) {
  for (const doc of docs) expect((await put(app, `/docs/${encodeURIComponent(doc.key)}`, doc.value, admin)).statusCode).toBeLessThan(300)
  const url = `/collections/${encodeURIComponent(collection)}/index`
  expect([200, 202]).toContain((await put(app, url, { fields: FIELDS }, admin)).statusCode)
  await eventually(async () => (await get(app, url, admin)).json().state === 'ready', INDEX_READY_MS)
}

function randomBody (rng: ReturnType<typeof random>): AggregateBody {
  const groupBy = [...new Set(Array.from({ length: rng.int(3) }, () => rng.pick(Object.keys(TYPES))))]
  const metrics: Record<string, Metric> = {}
  const sortable: string[] = []
  for (let count = rng.int(5); count > 0; count--) {
    const operator = rng.pick(['$count', '$sum', '$avg', '$min', '$max'] as const)
    const name = `m${count}`
    metrics[name] = (operator === '$count' ? { $count: {} } : { [operator]: rng.pick(['/n', '/w x']) }) as Metric
    // Sums and means are compared within a rounding: the order they give may differ by it, so sorts use the exact ones.
    if (operator === '$count' || operator === '$min' || operator === '$max') sortable.push(name)
  }
  const sort = rng.chance(0.6)
    ? [...(sortable.length > 0 && rng.chance(0.6) ? [{ metric: rng.pick(sortable) }] : groupBy.length > 0 ? [{ pointer: rng.pick(groupBy) }] : [])]
        .map((entry) => ({ ...entry, order: rng.pick(['asc', 'desc'] as const) }))
    : []
  return { filter: randomFilter(rng, WIDE), groupBy, metrics, ...(sort.length > 0 ? { sort } : {}), limit: 1 + rng.int(rng.chance(0.5) ? 5 : 200) }
}

function expectAgreement (answer: { groups: Group[], truncated: boolean }, docs: readonly Doc[], body: AggregateBody) {
  const expected = referenceAggregate(docs.filter((doc) => matches(doc, body.filter ?? {}, FIELDS)), body, TYPES)
  const what = JSON.stringify(body)
  expect(answer.truncated, what).toBe(expected.truncated)
  expect(answer.groups.map((group) => group.key), what).toEqual(expected.groups.map(({ group }) => group.key))
  answer.groups.forEach((group, position) => {
    const { group: reference, scale } = expected.groups[position]!
    for (const [name, value] of Object.entries(reference)) {
      if (name === 'key') continue
      if (typeof value === 'number' && name in scale) {
        expect(Math.abs((group[name] as number) - value), `${name} of ${JSON.stringify(group.key)} in ${what}`).toBeLessThanOrEqual(scale[name]! * 1e-12)
      } else {
        expect(group[name], `${name} of ${JSON.stringify(group.key)} in ${what}`).toEqual(value)
      }
    }
  })
}

describe('aggregations agree with the reference over the documents', () => {
  it.each([5, 77])('random filters, groupings, metrics, sorts and limits (seed %i)', async (seed) => {
    const rng = random(seed)
    const collection = `agg${seed}`
    const docs = uniqueDocs(rng, collection, 200, WIDE)
    await load(collection, docs)
    let refused = 0
    for (let round = 0; round < 40; round++) {
      const body = randomBody(rng)
      const response = await aggregate(collection, body)
      if (refusedForUnsearchable(response, docs, comparedTags(body.filter ?? {}, FIELDS), JSON.stringify(body))) {
        refused++
        continue
      }
      expect(response.statusCode, response.body).toBe(200)
      expectAgreement(response.json(), docs, body)
    }
    expect(refused).toBeLessThan(20)
    // Through a token that may read some of the collection: its totals are its own documents' alone.
    const prefixes = ['a', '日', '\\', '"q', '{x'].map((part) => `${collection}:${part}`)
    const { token } = await tokenFor(app, prefixes.map((prefix) => ({ prefix, rights: ['read'] })))
    const readable = docs.filter((doc) => prefixes.some((prefix) => doc.key.startsWith(prefix)))
    expect(readable.length).toBeGreaterThan(10)
    for (let round = 0; round < 15; round++) {
      const body = randomBody(rng)
      const response = await aggregate(collection, body, bearer(token))
      if (refusedForUnsearchable(response, readable, comparedTags(body.filter ?? {}, FIELDS), JSON.stringify(body))) continue
      expect(response.statusCode, response.body).toBe(200)
      expectAgreement(response.json(), readable, body)
    }
  }, 120_000)

  it('named cases: tag arrays count once per distinct member, no value and null and [] in the null group, a string "[]" its own', async () => {
    const collection = 'aggnamed'
    const docs: Doc[] = [
      { key: `${collection}:1`, value: { s: 'paid', tags: ['x', 'y', 'x'], n: 10, b: true } },
      { key: `${collection}:2`, value: { s: 'paid', tags: [], n: 2.5 } },
      { key: `${collection}:3`, value: { s: '[]', tags: ['[]'], n: null } },
      { key: `${collection}:4`, value: { tags: ['y'], 'w x': [1, 2] } },
      { key: `${collection}:5`, value: { s: null, n: -1, b: false } },
      { key: `${collection}:6`, value: { s: 'Ü @at', n: 1e21 } }
    ]
    await load(collection, docs)
    const body = {
      groupBy: ['/tags'],
      metrics: { n: { $count: {} }, total: { $sum: '/n' }, mean: { $avg: '/n' }, lo: { $min: '/n' }, hi: { $max: '/n' }, w: { $sum: '/w x' } }
    }
    const response = await aggregate(collection, body)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      groups: [
        { key: { '/tags': '[]' }, n: 1, total: 0, mean: null, lo: null, hi: null, w: 0 },
        { key: { '/tags': 'x' }, n: 1, total: 10, mean: 10, lo: 10, hi: 10, w: 0 },
        { key: { '/tags': 'y' }, n: 2, total: 10, mean: 10, lo: 10, hi: 10, w: 0 },
        { key: { '/tags': null }, n: 3, total: 1e21 + 1.5, mean: (1e21 + 1.5) / 3, lo: -1, hi: 1e21, w: 0 }
      ],
      truncated: false
    })
    const two = await aggregate(collection, { groupBy: ['/s', '/b'], metrics: { n: { $count: {} } }, sort: [{ metric: 'n', order: 'desc' }], limit: 2 })
    expect(two.json()).toEqual({
      // Equal counts go by key: each value byte by byte, null last.
      groups: [{ key: { '/s': '[]', '/b': null }, n: 1 }, { key: { '/s': 'paid', '/b': true }, n: 1 }],
      truncated: true
    })
    const all = await aggregate(collection, { metrics: { n: { $count: {} } } })
    expect(all.json()).toEqual({ groups: [{ key: {}, n: 6 }], truncated: false })
    const none = await aggregate(collection, { filter: { '/s': 'nothing' }, metrics: { n: { $count: {} } } })
    expect(none.json()).toEqual({ groups: [], truncated: false })
  })

  it('in the short GET form answers as the POST form, and refuses what it cannot read', async () => {
    const collection = 'aggnamed'
    const posted = await aggregate(collection, {
      filter: { '/n': { $gte: -1 } }, groupBy: ['/s', '/b'],
      metrics: { n: { $count: {} }, total: { $sum: '/n' }, hi: { $max: '/n' } }, sort: [{ metric: 'n', order: 'desc' }, { pointer: '/s', order: 'desc' }], limit: 3
    })
    expect(posted.statusCode, posted.body).toBe(200)
    const search = '/n=gte:-1&groupBy=/s,/b&metrics=n:count,total:sum:/n,hi:max:/n&sort=-n,-/s&limit=3'
    const short = await app.inject({ method: 'GET', url: `/collections/${collection}/aggregate?${search.replaceAll('/', '%2F')}`, headers: admin })
    expect(short.statusCode, short.body).toBe(200)
    expect(short.json()).toEqual(posted.json())
    for (const bad of ['metrics=n:mean:/n', 'metrics=n:count:/n', 'metrics=t:sum', 'metrics=n:count,n:count', 'groupBy=/n', '$or=x', 'filter=x', '/nope=1', '/n=gte:ten']) {
      const refused = await app.inject({ method: 'GET', url: `/collections/${collection}/aggregate?${bad}`, headers: admin })
      expect(refused.statusCode, bad).toBe(400)
      expect(refused.headers['content-type'], bad).toContain('application/problem+json')
    }
    const long = await app.inject({ method: 'GET', url: `/collections/${collection}/aggregate?/s=${'x'.repeat(17_000)}`, headers: admin })
    expect(long.statusCode).toBe(414)
  })

  it('refuses what it cannot answer with a problem, and a caller without the read right', async () => {
    const collection = 'aggnamed'
    for (const [body, status] of [
      [{ groupBy: ['/n'] }, 400],
      [{ groupBy: ['/nope'] }, 400],
      [{ groupBy: ['/s', '/b', '/tags'] }, 400],
      [{ metrics: { t: { $sum: '/s' } } }, 400],
      [{ metrics: { t: { $sum: '/n', $avg: '/n' } } }, 400],
      [{ metrics: { key: { $count: {} } } }, 400],
      [{ metrics: { n: { $count: {} } }, sort: [{ metric: 'other' }] }, 400],
      [{ groupBy: ['/s'], sort: [{ pointer: '/b' }] }, 400],
      [{ limit: 0 }, 400],
      [{ filter: { '/nope': 1 } }, 400]
    ] as const) {
      const response = await aggregate(collection, body)
      expect(response.statusCode, JSON.stringify(body)).toBe(status)
      expect(response.headers['content-type']).toContain('application/problem+json')
    }
    const { token } = await tokenFor(app, [{ prefix: 'elsewhere:', rights: ['read'] }])
    expect((await aggregate(collection, { metrics: { n: { $count: {} } } }, bearer(token))).statusCode).toBe(403)
    expect((await aggregate('noindex', { metrics: { n: { $count: {} } } })).statusCode).toBe(404)
  })

  it('refuses to make more than 10,000 groups (422), from many documents or from one document\'s arrays', async () => {
    const open = await buildTestApp()
    const collection = 'agggroups'
    const groupsOf = async (body: unknown) => await open.inject({ method: 'POST', url: `/collections/${collection}/aggregate`, payload: body as object })
    const members = (count: number, tag: string) => Array.from({ length: count }, (_, index) => `${tag}${index}`)
    // One document whose two arrays name 4,000,000 combinations (refused before they are made); two whose 6,000 combinations each make 12,000 groups.
    await put(open, `/docs/${collection}:cross`, { s: members(2000, 's'), tags: members(2000, 't'), kind: 'cross' })
    await put(open, `/docs/${collection}:a`, { s: members(100, 'a'), tags: members(60, 't'), kind: 'many' })
    await put(open, `/docs/${collection}:b`, { s: members(100, 'b'), tags: members(60, 't'), kind: 'many' })
    await indexReady(open, collection, [{ pointer: '/s', type: 'tag' }, { pointer: '/tags', type: 'tag' }, { pointer: '/kind', type: 'tag' }])
    for (const body of [
      { filter: { '/kind': 'cross' }, groupBy: ['/s', '/tags'], metrics: { n: { $count: {} } } },
      { filter: { '/kind': 'many' }, groupBy: ['/s', '/tags'], metrics: { n: { $count: {} } } }
    ]) {
      const over = await groupsOf(body)
      expect(over.statusCode, over.body).toBe(422)
      expect(over.json()).toMatchObject({ code: 'DOCS_ERR_LIMIT_EXCEEDED', limit: 'MAX_AGGREGATE_GROUPS', max: 10_000 })
    }
    const within = await groupsOf({ filter: { '/kind': 'many' }, groupBy: ['/kind'], metrics: { n: { $count: {} } } })
    expect(within.json()).toEqual({ groups: [{ key: { '/kind': 'many' }, n: 2 }], truncated: false })
  })

  it('states in the description what a sort item and a pointer take (schema-valid requests Schemathesis found refused)', async () => {
    for (const body of [
      { groupBy: ['/s'], sort: [{ order: 'asc' }] },
      { groupBy: ['/s'], metrics: { n: { $count: {} } }, sort: [{ metric: 'n', pointer: '/s' }] },
      { groupBy: ['/s~2'] },
      { metrics: { t: { $sum: '' } } }
    ]) {
      const response = await aggregate('aggnamed', body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(response.json().code, JSON.stringify(body)).toBe('DOCS_ERR_VALIDATION')
    }
    for (const search of ['groupBy=/s~2', 'metrics=t:sum:/n~', 'sort=-/s~3']) {
      const response = await app.inject({ method: 'GET', url: `/collections/aggnamed/aggregate?${search}`, headers: admin })
      expect(response.statusCode, search).toBe(400)
      expect(response.json().code, search).toBe('DOCS_ERR_VALIDATION')
    }
  })

  it('refuses to read more than MAX_AGGREGATE_MATCHES documents (422), never answering part', async () => {
    const bounded = await buildTestApp({ maxAggregateMatches: 3 })
    const collection = 'aggbound'
    for (let index = 0; index < 5; index++) await put(bounded, `/docs/${collection}:${index}`, { s: 'a', n: index })
    await indexReady(bounded, collection, FIELDS)
    const over = await bounded.inject({ method: 'POST', url: `/collections/${collection}/aggregate`, payload: { metrics: { n: { $count: {} } } } })
    expect(over.statusCode).toBe(422)
    expect(over.body).toContain('MAX_AGGREGATE_MATCHES')
    const within = await bounded.inject({ method: 'POST', url: `/collections/${collection}/aggregate`, payload: { filter: { '/n': { $lt: 2 } }, metrics: { n: { $count: {} } } } })
    expect(within.json()).toEqual({ groups: [{ key: {}, n: 2 }], truncated: false })
  })
})
