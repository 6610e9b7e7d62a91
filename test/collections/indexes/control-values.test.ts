import { describe, expect, it } from 'vitest'
import { buildTestApp, put, remove } from '../../helpers/app.js'
import { allPages, indexReady, query } from './helpers.js'

/*
 * Tag values holding control characters, in documents. RediSearch indexes a document's tag value only up to
 * its first U+0000, and splits it at U+001F (the index's tag separator): a query that such a document could
 * be answered wrongly for is refused (422), one it cannot concern is answered exactly. Line feeds and the
 * other control characters are indexed whole, and answered exactly everywhere.
 */

const app = await buildTestApp()

async function aggregate (collection: string, body: unknown) {
  return await app.inject({ method: 'POST', url: `/collections/${collection}/aggregate`, payload: body as object })
}

async function keysOf (collection: string, body: Record<string, unknown>) {
  const response = await query(app, collection, { limit: 100, ...body }, { prefer: 'count=exact' })
  expect(response.statusCode, `${JSON.stringify(body)}: ${response.body}`).toBe(200)
  const page = response.json() as { items: Array<{ key: string }>, count: number }
  expect(page.count, JSON.stringify(body)).toBe(page.items.length)
  return page.items.map((item) => item.key)
}

function expectRefused (response: Awaited<ReturnType<typeof query>>, key: string, pointer: string) {
  expect(response.statusCode, response.body).toBe(422)
  expect(response.headers['content-type']).toContain('application/problem+json')
  expect(response.json()).toMatchObject({ code: 'DOCS_ERR_UNSEARCHABLE_VALUE' })
  expect(response.json().documents).toContainEqual({ key, pointer })
}

const FIELDS = [
  { pointer: '/s', type: 'tag', sortable: true },
  { pointer: '/tags', type: 'tag' },
  { pointer: '/all', type: 'tag' },
  { pointer: '/n', type: 'number', sortable: true }
]

describe('a document tag value holding U+0000 is never answered as what precedes it', () => {
  it('loads', async () => {
    const docs: Record<string, unknown> = {
      'nul:1': { s: 'a\u0000b', tags: ['x', 'p\u0000q'], all: 'yes', n: 1 },
      'nul:2': { s: 'a', tags: ['p'], all: 'yes', n: 2 },
      'nul:3': { s: 'plain', tags: [], all: 'yes', n: 3 },
      'nul:4': { s: 'x\u0001', tags: ['c\u007f'], all: 'yes', n: 4 }
    }
    for (const [key, value] of Object.entries(docs)) expect((await put(app, `/docs/${key}`, value)).statusCode).toBeLessThan(300)
    await indexReady(app, 'nul', FIELDS)
  })

  it('$eq and $in on what precedes it are refused, naming the document and pointer (were answered with it)', async () => {
    expectRefused(await query(app, 'nul', { filter: { '/s': 'a' } }), 'nul:1', '/s')
    expectRefused(await query(app, 'nul', { filter: { '/s': { $in: ['a', 'zz'] } } }), 'nul:1', '/s')
    expectRefused(await query(app, 'nul', { filter: { '/tags': 'p' } }), 'nul:1', '/tags')
    expectRefused(await query(app, 'nul', { filter: { '/s': 'a' }, limit: 0 }, { prefer: 'count=exact' }), 'nul:1', '/s')
  })

  it('$ne and $nin are refused (were answered without it)', async () => {
    expectRefused(await query(app, 'nul', { filter: { '/all': 'yes', '/s': { $ne: 'a' } } }), 'nul:1', '/s')
    expectRefused(await query(app, 'nul', { filter: { '/all': 'yes', $not: { '/tags': { $in: ['p'] } } } }), 'nul:1', '/tags')
  })

  it('a sort on its field is refused (was sorted as what precedes it)', async () => {
    expectRefused(await query(app, 'nul', { filter: { '/all': 'yes' }, sort: [{ pointer: '/s' }] }), 'nul:1', '/s')
  })

  it('a query it cannot concern is answered exactly', async () => {
    expect(await keysOf('nul', { filter: { '/s': 'plain' } })).toEqual(['nul:3'])
    expect(await keysOf('nul', { filter: { '/s': { $in: ['plain', 'zz'] } } })).toEqual(['nul:3'])
    expect(await keysOf('nul', { filter: { '/all': 'yes', '/n': { $gte: 2 } }, sort: [{ pointer: '/n', order: 'desc' }] })).toEqual(['nul:4', 'nul:3', 'nul:2'])
    expect(await keysOf('nul', { filter: { '/n': { $gte: 2 }, '/s': { $ne: 'a' } } })).toEqual(['nul:3', 'nul:4'])
    // Other control characters are indexed whole.
    expect(await keysOf('nul', { filter: { '/s': 'x\u0001' } })).toEqual(['nul:4'])
    expect(await keysOf('nul', { filter: { '/tags': 'c\u007f' } })).toEqual(['nul:4'])
    expect(await keysOf('nul', { filter: { '/s': 'x' } })).toEqual([])
  })

  it('an aggregation filtering on its field is refused; one grouping by it groups the value the document holds', async () => {
    const refused = await aggregate('nul', { filter: { '/s': 'a' }, metrics: { n: { $count: {} } } })
    expectRefused(refused, 'nul:1', '/s')
    const grouped = await aggregate('nul', { filter: { '/all': 'yes' }, groupBy: ['/s'], metrics: { n: { $count: {} } } })
    expect(grouped.statusCode, grouped.body).toBe(200)
    expect(grouped.json().groups).toEqual([
      { key: { '/s': 'a' }, n: 1 }, { key: { '/s': 'a\u0000b' }, n: 1 }, { key: { '/s': 'plain' }, n: 1 }, { key: { '/s': 'x\u0001' }, n: 1 }
    ])
  })
})

describe('a document tag value holding U+001F is never answered as one of its parts', () => {
  it('loads', async () => {
    await put(app, '/docs/us:1', { s: 'a\u001fb', tags: ['x\u001fy'], all: 'yes', n: 1 })
    await put(app, '/docs/us:2', { s: 'b', tags: ['y'], all: 'yes', n: 2 })
    await indexReady(app, 'us', FIELDS)
  })

  it('$eq, $in, $prefix, $ne and a sort are refused (were answered with its parts)', async () => {
    expectRefused(await query(app, 'us', { filter: { '/s': 'a' } }), 'us:1', '/s')
    expectRefused(await query(app, 'us', { filter: { '/s': 'b' } }), 'us:1', '/s')
    expectRefused(await query(app, 'us', { filter: { '/tags': { $in: ['y'] } } }), 'us:1', '/tags')
    expectRefused(await query(app, 'us', { filter: { '/all': 'yes', '/tags': { $nin: ['x'] } } }), 'us:1', '/tags')
    expectRefused(await query(app, 'us', { filter: { '/all': 'yes' }, sort: [{ pointer: '/s', order: 'desc' }] }), 'us:1', '/s')
    expectRefused(await aggregate('us', { filter: { '/tags': 'x' }, metrics: { n: { $count: {} } } }), 'us:1', '/tags')
  })

  it('a query it cannot concern is answered exactly', async () => {
    expect(await keysOf('us', { filter: { '/s': 'c' } })).toEqual([])
    expect(await keysOf('us', { filter: { '/n': 2, '/s': 'b' } })).toEqual(['us:2'])
    const grouped = await aggregate('us', { filter: { '/n': { $gte: 0 } }, groupBy: ['/tags'], metrics: { n: { $count: {} } } })
    expect(grouped.json().groups).toEqual([{ key: { '/tags': 'x\u001fy' }, n: 1 }, { key: { '/tags': 'y' }, n: 1 }])
  })
})

describe('line feeds in document tag values are answered exactly', () => {
  const values = ['a\nb', 'a\n', '\nx', 'a\n\nb', 'a\r\nb', 'x \n y', 'b']

  it('in queries, sorts, pages and aggregations', async () => {
    for (const [index, value] of values.entries()) {
      expect((await put(app, `/docs/lf:${index}`, { s: value, tags: [value, 'all'], all: 'yes', n: index })).statusCode).toBeLessThan(300)
    }
    await indexReady(app, 'lf', FIELDS)
    // Compared with white space at both ends removed, as documented.
    const trimmed = (value: string) => value.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '')
    for (const value of values) {
      const same = values.flatMap((other, at) => trimmed(other) === trimmed(value) ? [`lf:${at}`] : [])
      expect(await keysOf('lf', { filter: { '/s': value } }), JSON.stringify(value)).toEqual(same)
      expect(await keysOf('lf', { filter: { '/tags': { $in: [value] } } }), JSON.stringify(value)).toEqual(same)
      expect(await keysOf('lf', { filter: { '/all': 'yes', '/s': { $ne: value } } }), JSON.stringify(value)).toHaveLength(values.length - same.length)
    }
    expect(await keysOf('lf', { filter: { '/s': { $prefix: 'a\nb' } } })).toEqual(['lf:0'])
    const byBytes = [...values.entries()].sort(([, a], [, b]) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map(([index]) => `lf:${index}`)
    for (const order of ['asc', 'desc'] as const) {
      const keys = (await allPages(app, 'lf', { filter: { '/all': 'yes' }, sort: [{ pointer: '/s', order }], limit: 2 })).flatMap((page) => page.items.map((item) => item.key))
      expect(keys, order).toEqual(order === 'asc' ? byBytes : [...byBytes].reverse())
    }
    const grouped = await aggregate('lf', { filter: { '/all': 'yes' }, groupBy: ['/s'], metrics: { n: { $count: {} } } })
    expect(grouped.statusCode, grouped.body).toBe(200)
    expect(grouped.json().groups).toEqual([...values].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map((value) => ({ key: { '/s': value }, n: 1 })))
    const counted = await aggregate('lf', { filter: { '/tags': 'a\nb' }, groupBy: ['/tags'], metrics: { n: { $count: {} } } })
    expect(counted.json().groups).toEqual([{ key: { '/tags': 'a\nb' }, n: 1 }, { key: { '/tags': 'all' }, n: 1 }])
  })
})

describe('the screen finds such a value past the bound of the wildcard that looks for any', () => {
  // More distinct control strings than RediSearch expands a wildcard to (200) on every master, then removed:
  // their values stay in the index until its garbage collection, and sort before the one left.
  const many = 700

  it('loads, and removes all but one', async () => {
    await indexReady(app, 'past', FIELDS)
    const keys = Array.from({ length: many }, (_, at) => `past:${at}`)
    for (let at = 0; at < many; at += 100) {
      const written = await Promise.all(keys.slice(at, at + 100).map(async (key, offset) => await put(app, `/docs/${key}`, { s: `\u0001${at + offset}`, all: 'yes', n: 1 })))
      for (const response of written) expect(response.statusCode).toBeLessThan(300)
    }
    expect((await put(app, '/docs/past:nul', { s: 'z\u0000', all: 'yes', n: 2 })).statusCode).toBeLessThan(300)
    for (let at = 0; at < many; at += 100) {
      const removed = await Promise.all(keys.slice(at, at + 100).map(async (key) => await remove(app, `/docs/${key}`)))
      for (const response of removed) expect(response.statusCode).toBe(204)
    }
  })

  it('is still found, and the query refused', async () => {
    expectRefused(await query(app, 'past', { filter: { '/s': 'z' } }), 'past:nul', '/s')
    expectRefused(await query(app, 'past', { filter: { '/all': 'yes' }, sort: [{ pointer: '/s' }] }), 'past:nul', '/s')
    expect(await keysOf('past', { filter: { '/n': 2 } })).toEqual(['past:nul'])
  })
})

describe('a tag value that is U+0000 or U+001F alone (an empty value to RediSearch) is found by the screen', () => {
  it('refuses a query comparing its field', async () => {
    await put(app, '/docs/lone:1', { s: '\u0000', all: 'yes', n: 1 })
    await put(app, '/docs/lone:2', { s: 'b', tags: ['\u001f'], all: 'yes', n: 2 })
    await indexReady(app, 'lone', FIELDS)
    expectRefused(await query(app, 'lone', { filter: { '/s': '' } }), 'lone:1', '/s')
    expectRefused(await query(app, 'lone', { filter: { '/tags': '' } }), 'lone:2', '/tags')
    expect(await keysOf('lone', { filter: { '/n': 2 } })).toEqual(['lone:2'])
  })
})
