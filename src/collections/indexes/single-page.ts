import type { MasterNode } from '../../redis/redis.js'
import { numberLiteral, stringLiteral } from './cursor.js'
import { resultsOf, type Page, type QueryPlan, type Row, type Searcher } from './search.js'

/** FT.AGGREGATE's FILTER keeping the keys under the caller's read scopes, when not the whole collection. */
export function readableFilter (readable: string[] | undefined): string[] {
  if (readable === undefined) return []
  return ['FILTER', readable.map((prefix) => `startswith(@__key, ${stringLiteral(prefix)})`).join(' || ')]
}

/** FT.AGGREGATE's FILTER keeping the matches after the plan's position (keyset), on the sort value and the key. */
function afterFilter (keyPrefix: string, { sort, after }: QueryPlan): string[] {
  if (after === undefined) return []
  const key = stringLiteral(keyPrefix + after.key)
  if (sort === undefined) return ['FILTER', `@__key > ${key}`]
  const attribute = '@' + sort.field.name
  if (after.value === undefined) return ['FILTER', `!exists(${attribute}) && @__key > ${key}`]
  const value = typeof after.value === 'number' ? numberLiteral(after.value) : stringLiteral(after.value)
  const beyond = sort.order === 'asc' ? '>' : '<'
  return ['FILTER', `!exists(${attribute}) || ${attribute} ${beyond} ${value} || (${attribute} == ${value} && @__key > ${key})`]
}

function rowOf (keyPrefix: string, attributes: Map<string, unknown>, plan: QueryPlan): Row {
  const key = String(attributes.get('__key')).slice(keyPrefix.length)
  if (plan.sort === undefined) return { key }
  const value = attributes.get(plan.sort.field.name)
  if (typeof value !== 'string') return { key }
  return { key, value: plan.sort.field.type === 'number' ? Number(value) : value }
}

/** The exact number a document's sortable field holds in the index, from FT.SEARCH's sort keys. */
async function exactNumber (searcher: Searcher, master: MasterNode, plan: QueryPlan, key: string): Promise<number | undefined> {
  const reply = await searcher.search(master, ['FT.SEARCH', plan.index.nameOn(master), '*', 'INKEYS', '1', searcher.keyPrefix + key, 'NOCONTENT',
    'SORTBY', plan.sort!.field.name, 'WITHSORTKEYS', 'LIMIT', '0', '1', ...searcher.tail({ query: '*', params: [] })])
  const [first] = searcher.rows(reply)
  return typeof first?.value === 'number' ? first.value : undefined
}

/**
 * A page on one Redis: FT.AGGREGATE loads each match's key (@__key) and sorts on the field and the key
 * (SORTBY ... MAX, a top-N); the page after a position keeps the matches after it with a FILTER written as
 * expressions RediSearch reads back exactly (see stringLiteral and numberLiteral). It prints numbers to 12
 * digits only, so under a numeric sort the last row's exact value (the cursor's) is read with FT.SEARCH's
 * sort keys; should it no longer round to what the page saw (the document changed in between), the page is
 * read again.
 */
export async function singlePage (searcher: Searcher, plan: QueryPlan, master: MasterNode): Promise<Page> {
  const max = String(plan.limit + 1)
  const order = plan.sort === undefined
    ? ['SORTBY', '2', '@__key', 'ASC', 'MAX', max, 'LIMIT', '0', max]
    : ['SORTBY', '4', '@' + plan.sort.field.name, plan.sort.order.toUpperCase(), '@__key', 'ASC', 'MAX', max, 'LIMIT', '0', max]
  for (let attempt = 0; ; attempt++) {
    const reply = await searcher.search(master, ['FT.AGGREGATE', plan.index.nameOn(master), plan.filter.query, 'LOAD', '1', '@__key',
      ...readableFilter(plan.readable), ...afterFilter(searcher.keyPrefix, plan), ...order, ...searcher.tail(plan.filter)])
    const rows = resultsOf(reply).map((attributes) => rowOf(searcher.keyPrefix, attributes, plan))
    const page = rows.slice(0, plan.limit)
    const more = rows.length > plan.limit
    const last = page.at(-1)
    if (plan.sort?.field.type !== 'number' || !more || last === undefined) return { rows: page, more }
    const exact = await exactNumber(searcher, master, plan, last.key)
    const printed = exact === undefined ? undefined : Number(exact.toPrecision(12))
    if (printed === last.value || attempt >= 2) {
      page[page.length - 1] = exact === undefined ? { key: last.key } : { key: last.key, value: exact }
      return { rows: page, more }
    }
  }
}
