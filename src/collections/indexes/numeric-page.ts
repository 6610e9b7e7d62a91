import type { MasterNode } from '../../redis/redis.js'
import { compareBytes, stringLiteral } from './cursor.js'
import { orderOf, resultsOf, type Page, type QueryPlan, type Row, type Searcher } from './search.js'

/**
 * Documents matching `query` in key order after `afterKey`, at most `count`, each given `value`: on one Redis
 * by FT.AGGREGATE sorting on the key, on a cluster ordered here from every match's key.
 */
async function byKey (searcher: Searcher, master: MasterNode, plan: QueryPlan, query: string, params: string[], afterKey: string | undefined,
  count: number, value: number | undefined): Promise<Row[]> {
  const valued = (key: string): Row => value === undefined ? { key } : { key, value }
  if (searcher.isCluster) {
    const found = await searcher.clusterMatches(master, { index: plan.index, ...(plan.readable ? { readable: plan.readable } : {}) }, { query, params })
    return found.map((row) => row.key).filter((key) => afterKey === undefined || compareBytes(key, afterKey) > 0)
      .sort(compareBytes).slice(0, count).map(valued)
  }
  const max = String(count)
  const reply = await searcher.search(master, ['FT.AGGREGATE', plan.index.nameOn(master), query, 'LOAD', '1', '@__key',
    ...(afterKey === undefined ? [] : ['FILTER', `@__key > ${stringLiteral(searcher.keyPrefix + afterKey)}`]),
    'SORTBY', '2', '@__key', 'ASC', 'MAX', max, 'LIMIT', '0', max, ...searcher.tail({ query, params })])
  return resultsOf(reply).map((attributes) => valued(String(attributes.get('__key')).slice(searcher.keyPrefix.length)))
}

/**
 * A page under a numeric sort, on one master, for a caller reading the whole collection: FT.SEARCH sorts
 * on the field alone (a top-N, as fast as RediSearch sorts) and answers exact values (WITHSORTKEYS); only
 * the documents sharing a value at the page's edges are ordered by key, with a query on that one value.
 * Values beyond the position are asked for with a range; documents without a value come last, by key.
 */
export async function numericPage (searcher: Searcher, plan: QueryPlan, sort: NonNullable<QueryPlan['sort']>, master: MasterNode): Promise<Page> {
  const want = plan.limit + 1
  const attribute = '@' + sort.field.name
  const { query, params } = plan.filter
  const order = orderOf(plan)
  // RediSearch takes `*` alone only.
  const and = (term: string) => query === '*' ? term : `(${query}) ${term}`
  const withValue = (range: string, extra: string[]) => ({ query: and(`${attribute}:${range}`), params: [...params, ...extra] })
  const tieGroup = (value: number, afterKey: string | undefined, count: number) => {
    const { query: tied, params: tiedParams } = withValue('[$sv $sv]', ['sv', String(value)])
    return byKey(searcher, master, plan, tied, tiedParams, afterKey, count, value)
  }
  const rows: Row[] = []
  const after = plan.after
  let bound = typeof after?.value === 'number' ? after.value : undefined
  if (after === undefined || bound !== undefined) {
    if (after !== undefined && bound !== undefined) rows.push(...await tieGroup(bound, after.key, want))
    while (rows.length < want) {
      const remaining = want - rows.length
      // From the start, the filter alone: RediSearch sorts documents without a value (absent or null) after
      // every valued one in either direction, so a page that meets one holds every valued match (no range to
      // intersect with the whole collection's).
      const beyond = bound === undefined ? plan.filter : withValue(sort.order === 'asc' ? '[($sb +inf]' : '[-inf ($sb]', ['sb', String(bound)])
      const reply = await searcher.search(master, ['FT.SEARCH', plan.index.nameOn(master), beyond.query, 'NOCONTENT', 'SORTBY', sort.field.name,
        sort.order.toUpperCase(), 'WITHSORTKEYS', 'LIMIT', '0', String(remaining), ...searcher.tail(beyond)])
      const found = searcher.rows(reply).filter((row) => typeof row.value === 'number')
      if (found.length < remaining) {
        // Every valued document beyond the bound is here.
        rows.push(...found.sort(order))
        break
      }
      // Those before the last value are all here; those with it may not be: they come from their own query.
      const edge = found.at(-1)!.value as number
      rows.push(...found.filter((row) => row.value !== edge).sort(order))
      rows.push(...await tieGroup(edge, undefined, want - rows.length))
      bound = edge
    }
  }
  if (rows.length < want) {
    const missing = { query: and(`-${attribute}:[-inf +inf]`), params }
    rows.push(...await byKey(searcher, master, plan, missing.query, missing.params,
      after !== undefined && after.value === undefined ? after.key : undefined, want - rows.length, undefined))
  }
  return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit }
}
