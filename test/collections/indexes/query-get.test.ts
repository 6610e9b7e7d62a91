import { describe, expect, it } from 'vitest'
import { buildTestApp, overSocket, put } from '../../helpers/app.js'
import { indexReady, query, shortQuery, type Page } from './helpers.js'

const app = await buildTestApp()

const getQuery = (collection: string, parameters: Array<[string, string]>, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
  shortQuery(app, collection, parameters, headers, method)

/** Every page, starting in one form and going on in the forms `next` picks, each carrying the other's cursor. */
async function pagesOf (collection: string, parameters: Array<[string, string]>, body: Record<string, unknown>, next: (page: number) => 'GET' | 'POST') {
  const pages: Page[] = []
  let cursor: string | null = null
  do {
    const response = next(pages.length) === 'GET'
      ? await getQuery(collection, [...parameters, ...(cursor ? [['cursor', cursor] as [string, string]] : [])], { prefer: 'count=exact' })
      : await query(app, collection, { ...body, ...(cursor ? { cursor } : {}) }, { prefer: 'count=exact' })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers['preference-applied']).toBe('count=exact')
    pages.push(response.json() as Page)
    cursor = pages.at(-1)!.cursor
  } while (cursor !== null && pages.length < 100)
  return pages
}

const fields = [{ pointer: '/status', type: 'tag', sortable: true }, { pointer: '/total', type: 'number', sortable: true },
  { pointer: '/paid', type: 'boolean' }, { pointer: '/title', type: 'text' }, { pointer: '/tags', type: 'tag' }, { pointer: '/code', type: 'tag' }]
const statuses = ['open', 'paid', 'shipped', 'a,b', 'x\\y']
for (let index = 0; index < 40; index++) {
  const order = {
    status: statuses[index % statuses.length], total: index % 7 === 0 ? 10 : index * 1.5, paid: index % 3 === 0,
    title: index % 2 ? 'red shoes' : 'blue hat', tags: index % 4 ? ['sale'] : ['sale', 'new'], code: String(index % 5)
  }
  expect((await put(app, `/docs/orders:${String(index).padStart(2, '0')}`, order)).statusCode).toBe(201)
}
await put(app, '/docs/orders:nototal', { status: 'open', code: '10' })
await indexReady(app, 'orders', fields)

describe('GET and POST answer a query alike', () => {
  const table: Array<[Array<[string, string]>, Record<string, unknown>]> = [
    [[], {}],
    [[['/status', 'open']], { filter: { '/status': 'open' } }],
    [[['/status', 'in:open,a\\,b'], ['sort', '-/total'], ['limit', '3']], { filter: { '/status': { $in: ['open', 'a,b'] } }, sort: [{ pointer: '/total', order: 'desc' }], limit: 3 }],
    [[['/total', 'gte:10'], ['/total', 'lt:40'], ['sort', '/total'], ['limit', '4'], ['fields', '/title,/total']],
      { filter: { '/total': { $gte: 10, $lt: 40 } }, sort: [{ pointer: '/total' }], limit: 4, fields: ['/title', '/total'] }],
    [[['/paid', 'true'], ['/status', 'ne:open'], ['sort', '/status'], ['limit', '2']], { filter: { '/paid': true, '/status': { $ne: 'open' } }, sort: [{ pointer: '/status' }], limit: 2 }],
    [[['/title', 'text:blue hat'], ['/tags', 'new'], ['limit', '1']], { filter: { '/title': { $text: 'blue hat' }, '/tags': 'new' }, limit: 1 }],
    [[['/tags', 'sale'], ['/tags', 'new'], ['limit', '2']], { filter: { '/tags': 'sale', $and: [{ '/tags': 'new' }] }, limit: 2 }],
    [[['/status', 'prefix:sh'], ['/total', 'exists:true']], { filter: { '/status': { $prefix: 'sh' }, '/total': { $exists: true } } }],
    [[['/status', 'open'], ['/total', 'exists:false']], { filter: { '/status': 'open', '/total': { $exists: false } } }],
    [[['/code', 'nin:1,2'], ['/status', 'x\\y'], ['sort', '-/status'], ['limit', '1']], { filter: { '/code': { $nin: ['1', '2'] }, '/status': 'x\\y' }, sort: [{ pointer: '/status', order: 'desc' }], limit: 1 }],
    [[['/code', '10']], { filter: { '/code': '10' } }]
  ]

  it('the same items, pages, cursors and counts, whichever form each page is asked in', async () => {
    for (const [parameters, body] of table) {
      const label = JSON.stringify(parameters)
      const posted = await pagesOf('orders', parameters, body, () => 'POST')
      expect(posted.flatMap((page) => page.items).length, label).toBeGreaterThan(0)
      expect(await pagesOf('orders', parameters, body, () => 'GET'), label).toEqual(posted)
      expect(await pagesOf('orders', parameters, body, (page) => page % 2 ? 'POST' : 'GET'), label).toEqual(posted)
      expect(await pagesOf('orders', parameters, body, (page) => page % 2 ? 'GET' : 'POST'), label).toEqual(posted)
    }
  })

  it('HEAD answers GET\'s status and headers without a body', async () => {
    const parameters: Array<[string, string]> = [['/status', 'open'], ['limit', '2']]
    const got = await getQuery('orders', parameters, { prefer: 'count=exact' })
    const head = await getQuery('orders', parameters, { prefer: 'count=exact' }, 'HEAD')
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    expect(head.headers['content-type']).toBe(got.headers['content-type'])
    expect(head.headers['preference-applied']).toBe('count=exact')
    expect((await getQuery('orders', [['/price', '1']], {}, 'HEAD')).statusCode).toBe(400)
  })

  it('the field\'s type says what a value is: the string "10" in a tag field, the number 10 in a number field', async () => {
    const keys = async (parameters: Array<[string, string]>) => {
      const response = await getQuery('orders', [...parameters, ['limit', '100']])
      expect(response.statusCode, response.body).toBe(200)
      return (response.json() as Page).items.map((item) => item.key)
    }
    expect(await keys([['/code', '10']])).toEqual(['orders:nototal'])
    const tens = ['orders:00', 'orders:07', 'orders:14', 'orders:21', 'orders:28', 'orders:35']
    for (const ten of ['10', '10.0', '1e1', '1.0E+1', 'in:10,99']) expect(await keys([['/total', ten]]), ten).toEqual(tens)
    expect(await keys([['/total', 'gt:55.5']])).toEqual(['orders:38', 'orders:39'])
  })
})

/** Every character RediSearch's query syntax treats specially, the list and operator escapes, spaces and unicode. */
const CRAFTED = ['a-b', '-lead', 'a@b', '@f:{x}', '{c}', 'p|q', 'st*r', '*', 'q"t', '"', 'b\\s', '\\', 'a\\,b', 'two words', 'a,b', ',',
  'a:b', 'in:x', 'eq:', '%41', '%', '+plus', 'a&b=c', '#h', '?q', '/sl/ash', 'ünïcödé', '日本語', '😀 emoji', '$p0', 'it\'s']

describe('values with characters RediSearch or URLs treat specially match literally', () => {
  it('on eq:, ne:, in:, nin: and prefix:, as POST finds them', async () => {
    for (const [index, value] of CRAFTED.entries()) {
      expect((await put(app, `/docs/${encodeURIComponent(`gcrafted:${index}`)}`, { v: value, all: 'yes' })).statusCode).toBe(201)
    }
    await indexReady(app, 'gcrafted', [{ pointer: '/v', type: 'tag' }, { pointer: '/all', type: 'tag' }])
    const escaped = (value: string) => value.replaceAll('\\', '\\\\').replaceAll(',', '\\,')
    const keysOf = async (response: Awaited<ReturnType<typeof getQuery>>, label: string) => {
      expect(response.statusCode, `${label}: ${response.body}`).toBe(200)
      const page = response.json() as Page
      expect(page.count, label).toBe(page.items.length)
      return page.items.map((item) => item.key)
    }
    const count = { prefer: 'count=exact' }
    for (const [index, value] of CRAFTED.entries()) {
      const key = `gcrafted:${index}`
      expect(await keysOf(await getQuery('gcrafted', [['/v', `eq:${value}`], ['limit', '100']], count), value)).toEqual([key])
      expect(await keysOf(await getQuery('gcrafted', [['/v', `in:${escaped(value)},none`], ['limit', '100']], count), value)).toEqual([key])
      const others = await keysOf(await getQuery('gcrafted', [['/all', 'yes'], ['/v', `ne:${value}`], ['limit', '100']], count), value)
      expect(others, value).toHaveLength(CRAFTED.length - 1)
      expect(others, value).not.toContain(key)
      expect(await keysOf(await getQuery('gcrafted', [['/all', 'yes'], ['/v', `nin:${escaped(value)}`], ['limit', '100']], count), value)).toEqual(others)
      if ([...value.trim()].length >= 2) {
        const posted = await keysOf(await query(app, 'gcrafted', { filter: { '/v': { $prefix: value } }, limit: 100 }, count), value)
        expect(await keysOf(await getQuery('gcrafted', [['/v', `prefix:${value}`], ['limit', '100']], count), value)).toEqual(posted)
      }
      if (!/^[A-Za-z]+:/.test(value)) {
        expect(await keysOf(await getQuery('gcrafted', [['/v', value], ['limit', '100']], count), value)).toEqual([key])
      }
    }
  })

  it('reads the query string as forms send it: `+` is a space, `%2B` a plus, a pointer\'s `/` may be percent-encoded', async () => {
    const found = async (search: string) => {
      const response = await app.inject({ method: 'GET', url: `/collections/gcrafted/query?${search}` })
      expect(response.statusCode, response.body).toBe(200)
      return (response.json() as Page).items.map((item) => item.value)
    }
    expect(await found('/v=two+words')).toEqual([{ v: 'two words', all: 'yes' }])
    expect(await found('%2Fv=%2Bplus')).toEqual([{ v: '+plus', all: 'yes' }])
    expect(await found('/v=eq:%2541')).toEqual([{ v: '%41', all: 'yes' }])
    expect(await found('/v=%E6%97%A5%E6%9C%AC%E8%AA%9E')).toEqual([{ v: '日本語', all: 'yes' }])
  })
})

describe('what the description allows, the GET form takes (schema-valid requests Schemathesis found refused)', () => {
  it('sort, fields, limit and cursor at their bounds, and a condition at its bound, fit in the query string: never 414', async () => {
    const pointer = '/' + 'p'.repeat(1023)
    const search = new URLSearchParams([['sort', '-' + pointer], ['fields', Array(4).fill(pointer.slice(0, 1023)).join(',')], ['limit', '100'],
      ['cursor', 'A'.repeat(4096)], ['/status', 'in:' + Array(4).fill('a'.repeat(1020)).join(',')]]).toString()
    const response = await app.inject({ method: 'GET', url: `/collections/orders/query?${search}` })
    expect(response.statusCode, response.body).toBe(400)
    expect(response.json().detail).toMatch(/sort\/0\/pointer: .* is not a field/)
  })

  it('a collection name at its bound does not count towards the query string\'s', async () => {
    const response = await app.inject({ method: 'GET', url: `/collections/${'c'.repeat(1024)}/query?/status=${'a'.repeat(4096)}&fields=${'/f'.repeat(2048)}` })
    expect(response.statusCode, response.body).toBe(404)
  })

  it('fields of any pointers the description allows, commas and backslashes escaped, the whole document as ""', async () => {
    const response = await getQuery('orders', [['/code', '10'], ['fields', '/st\\,atus,/x\\\\y,,/~0~1']])
    expect(response.statusCode, response.body).toBe(200)
    expect((response.json() as Page).items[0]!.value).toEqual({ '': { status: 'open', code: '10' } })
  })
})

describe('refusals are problems naming the parameter', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['/price=1', 400, /Query parameter "\/price": "\/price" is not a field of the collection's index/],
    ['/total=ten', 400, /Query parameter "\/total": "ten" is not a number/],
    ['/paid=yes', 400, /Query parameter "\/paid": "yes" is not true or false/],
    ['/status=gt:a', 400, /Query parameter "\/status" \(gt:\): a tag field takes/],
    ['/status=prefix:o', 400, /Query parameter "\/status" \(prefix:\): takes a prefix of at least 2/],
    ['/title=red', 400, /Query parameter "\/title" \(eq:\): a text field takes \$text/],
    ['/status=like:o', 400, /"like:" is not an operator/],
    ['%24or=x', 400, /Query parameter "\$or": .* take POST/],
    ['filter=%7B%7D', 400, /Query parameter "filter": .* take POST/],
    ['limt=5', 400, /Query parameter "limt": is neither sort, fields, limit, cursor nor a pointer/],
    ['/status=ne:open', 400, /only says what documents lack/],
    ['limit=101', 400, /limit/],
    ['limit=ten', 400, /limit/],
    ['limit=1&limit=2', 400, /limit/],
    ['sort=total', 400, /querystring\/sort must match pattern/],
    ['sort=-/title', 400, /sort\/0\/pointer: the field "\/title" is not sortable/],
    ['sort=/total&sort=/status', 400, /sort/],
    ['fields=' + Array(17).fill('/x').join(','), 400, /querystring\/fields must match pattern/],
    ['fields=nope', 400, /querystring\/fields must match pattern/],
    ['fields=/a~2', 400, /querystring\/fields must match pattern/],
    ['cursor=not+base64url', 400, /querystring\/cursor must match pattern/],
    ['/status=open&cursor=garbage', 400, /cursor is not one this query issued/],
    ['/status=%ZZ', 400, /Query parameter "\/status": bad percent-encoding/],
    ['/status=%E0%A4%A', 400, /Query parameter "\/status": bad percent-encoding/],
    ['/status=in:a\\b', 400, /Query parameter "\/status": in a list, a backslash/],
    ['/status=' + Array(101).fill('a').join('&/status='), 400, /querystring\/~1status must NOT have more than 100 items/],
    ['/status=a&' + Array.from({ length: 100 }, (_, index) => `/p${index}=a`).join('&'), 400, /Query parameter "\/p99": a query string holds at most 100 conditions/],
    ['/status=' + 'a'.repeat(16 * 1024), 414, /parameters exceed 16384 characters: POST the query to \/collections\/orders\/query/]
  ]

  it.each(cases.map(([search, ...rest]) => [search.slice(0, 60), search, ...rest] as const))('%s', async (_label, search, status, detail) => {
    const response = await app.inject({ method: 'GET', url: `/collections/orders/query?${search}` })
    expect(response.statusCode, response.body).toBe(status)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
    const problem = response.json()
    expect(problem.detail + JSON.stringify(problem.errors ?? ''), search.slice(0, 80)).toMatch(detail)
  })

  it('over a real socket, a URL past 16 KiB is 414 and one past the HTTP parser\'s bound 431, each a problem', async () => {
    for (const [length, status, code] of [[20 * 1024, 414, 'DOCS_ERR_URI_TOO_LONG'], [70 * 1024, 431, 'DOCS_ERR_HEADERS_TOO_LARGE']] as const) {
      const response = await overSocket(app, 'GET', `/collections/orders/query?/status=${'a'.repeat(length)}`)
      expect(response.statusCode).toBe(status)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(response.json()).toMatchObject({ code })
    }
    const many = Array.from({ length: 1000 }, (_, index) => `/p${index}=a`).join('&')
    const response = await overSocket(app, 'GET', `/collections/orders/query?${many}`)
    expect(response.statusCode).toBe(400)
    expect(response.json().detail).toMatch(/at most 100 conditions/)
  })

  it('404 without an index', async () => {
    const response = await app.inject({ method: 'GET', url: '/collections/unindexed/query?/s=a' })
    expect(response.statusCode).toBe(404)
    expect(response.json().code).toBe('DOCS_ERR_NOT_FOUND')
  })
})
