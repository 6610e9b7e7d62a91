/**
 * The short GET form of an aggregation, `?/status=paid&groupBy=/status&metrics=n:count,total:sum:/total&sort=-n`,
 * read into the aggregation the POST form takes: its conditions as a query's short form reads them. Pure.
 */
import type { AggregateRequest, MetricOperator } from './aggregate.js'
import { fail, listOf, shortFilterOf, type ShortFilter } from './short-query.js'

export interface ShortAggregateString {
  groupBy?: string
  metrics?: string
  sort?: string
  limit?: number
  [parameter: string]: unknown
}

/** An aggregation whose filter is read against the index's fields (see ShortFilter). */
export type ShortAggregate = Omit<AggregateRequest, 'filter'> & ShortFilter

const NAMED = ['groupBy', 'metrics', 'sort', 'limit']
const OPERATORS = ['count', 'sum', 'avg', 'min', 'max']

/** `n:count`, `total:sum:/total`: a name, an operator, and for all but count a pointer. */
function metricsOf (text: string): NonNullable<AggregateRequest['metrics']> {
  const metrics: NonNullable<AggregateRequest['metrics']> = {}
  for (const item of listOf(text, 'metrics')) {
    const [name = '', operator = '', ...rest] = item.split(':')
    const pointer = rest.join(':')
    if (!OPERATORS.includes(operator)) fail('metrics', `${JSON.stringify(item)} is not name:operator[:pointer] with an operator of ${OPERATORS.join(' ')}`)
    if ((operator === 'count') !== (pointer === '')) fail('metrics', `${JSON.stringify(item)}: count takes no pointer, ${OPERATORS.slice(1).join(' ')} take one`)
    if (Object.hasOwn(metrics, name)) fail('metrics', `${JSON.stringify(name)} is named twice`)
    const key = `$${operator}` as MetricOperator
    metrics[name] = { [key]: operator === 'count' ? {} : pointer }
  }
  return metrics
}

/** `-n,/status`: metrics by name and groupBy pointers (starting with "/"), `-` before for a descending order. */
function sortOf (text: string): NonNullable<AggregateRequest['sort']> {
  return listOf(text, 'sort').map((item) => {
    const descending = item.startsWith('-')
    const name = descending ? item.slice(1) : item
    const order = descending ? 'desc' as const : 'asc' as const
    return name.startsWith('/') ? { pointer: name, order } : { metric: name, order }
  })
}

/** Reads the query string; 400 naming any parameter it cannot take. */
export function shortAggregateOf (query: ShortAggregateString): ShortAggregate {
  return {
    ...(query.groupBy === undefined ? {} : { groupBy: listOf(query.groupBy, 'groupBy') }),
    ...(query.metrics === undefined ? {} : { metrics: metricsOf(query.metrics) }),
    ...(query.sort === undefined ? {} : { sort: sortOf(query.sort) }),
    ...(query.limit === undefined ? {} : { limit: query.limit }),
    ...shortFilterOf(query, NAMED, '/collections/{collection}/aggregate')
  }
}
