import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { get, put } from '../../helpers/app.js'
import { eventually } from '../../helpers/local-redis.js'
import { holdsUnsearchable, type Doc } from './reference.js'

/**
 * How long an index may take to be ready. RediSearch builds one by scanning its master's whole keyspace,
 * which the suite's other files fill as they run: with three files at once on a cluster, builds took over 10 s.
 */
export const INDEX_READY_MS = 20_000

/** Declares a collection's index and waits, with a bound, until it reports ready. */
export async function indexReady (app: FastifyInstance, collection: string, fields: unknown[]): Promise<void> {
  const url = `/collections/${encodeURIComponent(collection)}/index`
  const declared = await put(app, url, { fields })
  expect([200, 202], declared.body).toContain(declared.statusCode)
  await eventually(async () => (await get(app, url)).json().state === 'ready', INDEX_READY_MS)
}

export interface Page {
  items: Array<{ key: string, etag: string, value: unknown }>
  cursor: string | null
  count?: number
}

/** One query request; the answer when 200. */
export async function query (app: FastifyInstance, collection: string, body: unknown, headers: Record<string, string> = {}) {
  return await app.inject({
    method: 'POST', url: `/collections/${encodeURIComponent(collection)}/query`, payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers }
  })
}

/** One query in the short GET form: `parameters` as the query string, each name and value percent-encoded. */
export async function shortQuery (app: FastifyInstance, collection: string, parameters: Array<[string, string]>, headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET') {
  const search = parameters.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')
  return await app.inject({ method, url: `/collections/${encodeURIComponent(collection)}/query?${search}`, headers })
}

/** Every page of a query, following its cursors (at most maxPages). */
export async function allPages (app: FastifyInstance, collection: string, body: Record<string, unknown>, maxPages = 1000): Promise<Page[]> {
  const pages: Page[] = []
  let cursor: string | null = null
  do {
    const response = await query(app, collection, { ...body, ...(cursor ? { cursor } : {}) })
    expect(response.statusCode, response.body).toBe(200)
    const page = response.json() as Page
    pages.push(page)
    cursor = page.cursor
  } while (cursor !== null && pages.length < maxPages)
  return pages
}

/**
 * Whether an answer is a refusal the documents justify (docs/queries.md): a 422 naming documents, among
 * those the caller may read, that hold U+0000 or U+001F in a tag field the request decides by (`pointers`).
 * An answer of any other status is left to the caller; a refusal nothing justifies fails.
 */
export function refusedForUnsearchable (response: LightMyRequestResponse, docs: readonly Doc[], pointers: ReadonlySet<string>, context: string,
  unknown: (key: string) => boolean = () => false): boolean {
  if (response.statusCode !== 422 || response.json().code !== 'DOCS_ERR_UNSEARCHABLE_VALUE') return false
  const named = response.json().documents as Array<{ key: string, pointer: string }>
  expect(named.length, context).toBeGreaterThan(0)
  for (const { key, pointer } of named) {
    expect(pointers.has(pointer), `${pointer} named by ${context}`).toBe(true)
    if (unknown(key)) continue
    const doc = docs.find((candidate) => candidate.key === key)
    expect(doc !== undefined && holdsUnsearchable(doc, pointer), `${key} at ${pointer} named by ${context}`).toBe(true)
  }
  return true
}
