import { encodeCursor, queryDigest } from '../../src/collections/indexes/cursor.js'
import { docPath, type Scenario } from './scenario.js'

const family = 'queries'
export const COLLECTION = 'bench-q'
/** The collection's size in a measured run; a smoke run writes a small one. */
const DOCUMENTS = 100_000
const STATUSES = 1000
/** The collection's first index generation, under the service's KEY_PREFIX (the runner prefixes it). */
export const INDEX = `\u001findex\u001f${COLLECTION}\u001f1`
const JSON_BODY = { 'content-type': 'application/json' }
const FIELDS = [{ pointer: '/status', type: 'tag' }, { pointer: '/total', type: 'number', sortable: true }, { pointer: '/title', type: 'text' }]

const keyOf = (index: number) => `${COLLECTION}:${String(index).padStart(6, '0')}`
const documentOf = (index: number) => ({ status: `s${index % STATUSES}`, total: index / 2, title: `order ${index}`, lines: [index, index + 1] })

/** The statuses the aggregation row groups: a hundred documents each in a measured run. */
export const AGGREGATED = Array.from({ length: 10 }, (_, index) => `s${index + 1}`)

const sorted = { filter: { '/total': { $gte: 0 } }, sort: [{ pointer: '/total', order: 'desc' }] }

/** Writes a collection of `documents` in batches, declares its index and waits until it is ready. */
export async function prepare (documents: number, url: string, headers: Record<string, string>): Promise<void> {
  for (let from = 0; from < documents; from += 500) {
    const items = Array.from({ length: Math.min(500, documents - from) }, (_, offset) => ({ key: keyOf(from + offset), value: documentOf(from + offset) }))
    const response = await fetch(`${url}/batch/write`, { method: 'POST', body: JSON.stringify({ items }), headers: { ...headers, ...JSON_BODY } })
    if (!response.ok) throw new Error(`writing the query fixtures answered ${response.status}: ${await response.text()}`)
  }
  const declared = await fetch(`${url}/collections/${COLLECTION}/index`, { method: 'PUT', body: JSON.stringify({ fields: FIELDS }), headers: { ...headers, ...JSON_BODY } })
  if (!declared.ok) throw new Error(`declaring the index answered ${declared.status}: ${await declared.text()}`)
  for (let attempt = 0; attempt < 1200; attempt++) {
    const state = await (await fetch(`${url}/collections/${COLLECTION}/index`, { headers })).json() as { state: string }
    if (state.state === 'ready') return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error('the query fixtures\' index was not ready within 300 s')
}

function queryRequest (body: unknown, headers: Record<string, string> = {}) {
  return { method: 'POST' as const, path: `/collections/${COLLECTION}/query`, body: JSON.stringify(body), headers: { ...JSON_BODY, ...headers } }
}

/**
 * A 100k-document collection with an index: a selective filter, a sorted page, a count and a page 50,000
 * documents deep by cursor, each beside the FT.SEARCH that does the same on the service's own Redis (the
 * deep page by offset, the way one pages without a cursor); then writes to an indexed collection beside
 * writes to an unindexed one.
 */
export function queriesScenario (documents = DOCUMENTS): Scenario {
  const deep = documents / 2
  // Sorted by total descending, the document at position `deep` is the one whose total is (documents - deep - 1) / 2.
  const lastBefore = documents - deep
  const cursor = encodeCursor(queryDigest(COLLECTION, sorted.filter, ['/total', 'desc']), { key: keyOf(lastBefore), value: lastBefore / 2 })
  const write = (name: string, key: string, title: string) => ({
    id: `${family}/${name}`,
    family,
    title,
    requests: [{ method: 'PUT' as const, path: docPath(key), body: JSON.stringify(documentOf(7)), headers: { ...JSON_BODY, prefer: 'return=minimal' } }],
    direct: { key, args: ['JSON.SET', '$', JSON.stringify(documentOf(7))], title: 'JSON.SET {key} $ {document}' },
    target: 'service' as const,
    kind: 'write' as const
  })
  return {
    family,
    title: `Queries on a ${documents.toLocaleString('en')}-document collection`,
    documents: {},
    prepare: (url, headers) => prepare(documents, url, headers),
    rows: [
      {
        id: `${family}/selective`, family, title: 'POST /collections/{c}/query {"/status":"s17"} (100 matches), limit 20',
        requests: [queryRequest({ filter: { '/status': 's17' }, limit: 20 })],
        direct: { key: INDEX, args: ['FT.SEARCH', '@f0:{$v}', 'LIMIT', '0', '20', 'PARAMS', '2', 'v', 's17', 'DIALECT', '2'], title: 'FT.SEARCH {index} @status:{$v} LIMIT 0 20' },
        target: 'service', kind: 'read'
      },
      // The least a versioned gateway does for the row above (see bench/processes/floor-server.mjs): FT.SEARCH
      // with the documents, then MGET of their versions; RediSearch's order, no cursor, no access, no limits.
      {
        id: `${family}/floor-selective`, family, title: 'floor: FT.SEARCH @status:{$v} LIMIT 0 20 with the documents + MGET of their versions',
        requests: [{ method: 'POST' as const, path: `/floor-query/${encodeURIComponent(INDEX)}`, body: JSON.stringify({ field: 'f0', value: 's17', limit: 20 }), headers: JSON_BODY }],
        direct: { key: INDEX, args: ['FT.SEARCH', '@f0:{$v}', 'LIMIT', '0', '20', 'PARAMS', '2', 'v', 's17', 'DIALECT', '2'], title: 'FT.SEARCH {index} @status:{$v} LIMIT 0 20' },
        target: 'floor', kind: 'read'
      },
      {
        id: `${family}/selective-get`, family, title: 'GET /collections/{c}/query?/status=s17&limit=20 (the short form of the row above)',
        requests: [{ method: 'GET' as const, path: `/collections/${COLLECTION}/query?/status=s17&limit=20` }],
        direct: { key: INDEX, args: ['FT.SEARCH', '@f0:{$v}', 'LIMIT', '0', '20', 'PARAMS', '2', 'v', 's17', 'DIALECT', '2'], title: 'FT.SEARCH {index} @status:{$v} LIMIT 0 20' },
        target: 'service', kind: 'read'
      },
      // Ten statuses of a thousand: 100 matches each, grouped, counted and added up. The direct side reduces in
      // Redis (its reducers answer to 12 digits); the service reads each match's values and reduces them exactly.
      {
        id: `${family}/aggregate`, family, title: 'POST /collections/{c}/aggregate: 1,000 matches by /status, count, sum, mean, min, max of /total',
        requests: [{
          method: 'POST' as const, path: `/collections/${COLLECTION}/aggregate`, headers: JSON_BODY, body: JSON.stringify({
            filter: { '/status': { $in: AGGREGATED } }, groupBy: ['/status'],
            metrics: { n: { $count: {} }, total: { $sum: '/total' }, mean: { $avg: '/total' }, lo: { $min: '/total' }, hi: { $max: '/total' } }
          })
        }],
        direct: {
          key: INDEX,
          args: ['FT.AGGREGATE', `@f0:{${AGGREGATED.join('|')}}`, 'GROUPBY', '1', '@f0', 'REDUCE', 'COUNT', '0', 'AS', 'n',
            'REDUCE', 'SUM', '1', '@f1', 'AS', 'total', 'REDUCE', 'AVG', '1', '@f1', 'AS', 'mean', 'REDUCE', 'MIN', '1', '@f1', 'AS', 'lo',
            'REDUCE', 'MAX', '1', '@f1', 'AS', 'hi', 'DIALECT', '2'],
          title: 'FT.AGGREGATE {index} @status:{s1|...|s10} GROUPBY 1 @status REDUCE COUNT, SUM, AVG, MIN, MAX'
        },
        target: 'service', kind: 'read'
      },
      // A pass over all 100k matches each: two at a time, or 16 queue past REDIS_TIMEOUT_MS (503).
      {
        id: `${family}/sorted-page`, family, title: 'POST /collections/{c}/query sorted by /total desc, limit 20',
        requests: [queryRequest({ ...sorted, limit: 20 })],
        direct: { key: INDEX, args: ['FT.SEARCH', '@f1:[0 +inf]', 'SORTBY', 'f1', 'DESC', 'LIMIT', '0', '20', 'DIALECT', '2'], title: 'FT.SEARCH {index} @total:[0 +inf] SORTBY total DESC LIMIT 0 20' },
        target: 'service', kind: 'read', connections: 2
      },
      {
        id: `${family}/count`, family, title: 'POST /collections/{c}/query {"/total":{"$gte":0}} limit 0, Prefer: count=exact',
        requests: [queryRequest({ filter: { '/total': { $gte: 0 } }, limit: 0 }, { prefer: 'count=exact' })],
        direct: { key: INDEX, args: ['FT.SEARCH', '@f1:[0 +inf]', 'LIMIT', '0', '0', 'DIALECT', '2'], title: 'FT.SEARCH {index} @total:[0 +inf] LIMIT 0 0' },
        target: 'service', kind: 'read', connections: 2
      },
      {
        id: `${family}/deep-page`, family, title: 'POST /collections/{c}/query sorted, a cursor 50,000 deep, limit 20',
        requests: [queryRequest({ ...sorted, limit: 20, cursor })],
        direct: { key: INDEX, args: ['FT.SEARCH', '@f1:[0 +inf]', 'SORTBY', 'f1', 'DESC', 'LIMIT', String(deep), '20', 'DIALECT', '2'], title: `FT.SEARCH {index} ... SORTBY total DESC LIMIT ${deep} 20` },
        target: 'service', kind: 'read', connections: 2
      },
      write('write-indexed', keyOf(7), 'PUT /docs/{key} of an indexed collection'),
      write('write-unindexed', 'bench-plain:7', 'PUT /docs/{key} of a collection without an index')
    ]
  }
}
