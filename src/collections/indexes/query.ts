import { limitExceeded } from '../../errors.js'
import { redisCall } from '../../redis/deadline.js'
import type { MasterNode, Redis } from '../../redis/redis.js'
import type { IndexField } from './definition.js'
import type { CompiledFilter } from './filter.js'
import { compareBytes, numberLiteral, stringLiteral, type Position } from './cursor.js'
import { fieldsOfReply, isUnknownIndex, type ActiveIndex } from './storage.js'

/*
 * How a query runs. The order is the sort field's value (absent and null values last, whatever the
 * direction), then the key, byte by byte. On one Redis, FT.AGGREGATE loads each match's key (@__key) and
 * sorts on both (SORTBY ... MAX), which RediSearch does as a top-N over the matches; the page after a
 * position keeps the matches after it with a FILTER on the sort value and the key (keyset), written as
 * expressions RediSearch reads back exactly (see stringLiteral and numberLiteral); the filter's values all
 * reach RediSearch as PARAMS. A numeric sort, the common case, has a faster plan (see numericPage). On a
 * Redis Cluster, where RediSearch answers from its own shard only, every master is searched: under a numeric
 * sort each answers its first rows by the same plan and they are merged; otherwise the service orders every
 * match they answer (see clusterPage).
 */

export interface QueryPlan {
  index: ActiveIndex
  filter: CompiledFilter
  sort?: { field: IndexField, order: 'asc' | 'desc' }
  /** The position to continue after. */
  after?: Position
  limit: number
  /** Full key prefixes the caller may read, when not the whole collection. */
  readable?: string[]
}

export type Row = Position

export interface QueryOptions {
  keyPrefix: string
  /** RediSearch's TIMEOUT for each command, in ms. */
  timeoutMs: number
  /** Longest wait for Redis. */
  redisTimeoutMs: number
  /** On a Redis Cluster, most matches of a query (or of one sort value) one master answers for the service to order. */
  maxClusterMatches: number
}

const TIMED_OUT = /timeout/i

/** Runs the searches of the collection's queries on every master. */
export function createQueryRunner (redis: Redis, { keyPrefix, timeoutMs, redisTimeoutMs, maxClusterMatches }: QueryOptions) {
  function tooSlow (): Error {
    return limitExceeded('QUERY_TIMEOUT_MS', timeoutMs, `The query took RediSearch longer than ${timeoutMs} ms; narrow its filter`)
  }

  async function search (master: MasterNode, args: string[]): Promise<Map<string, unknown>> {
    let reply: unknown
    try {
      reply = await redisCall(master.sender.send<unknown>(undefined, args), redisTimeoutMs)
    } catch (error) {
      if (error instanceof Error && TIMED_OUT.test(error.message) && !isUnknownIndex(error)) throw tooSlow()
      throw error
    }
    const fields = fieldsOfReply(reply)
    const warnings = fields.get('warning')
    if (Array.isArray(warnings) && warnings.some((warning) => TIMED_OUT.test(String(warning)))) throw tooSlow()
    return fields
  }

  const tail = (filter: CompiledFilter) => [
    'TIMEOUT', String(timeoutMs), ...(filter.params.length > 0 ? ['PARAMS', String(filter.params.length), ...filter.params] : []), 'DIALECT', '2'
  ]

  function readableFilter (readable: string[] | undefined): string[] {
    if (readable === undefined) return []
    return ['FILTER', readable.map((prefix) => `startswith(@__key, ${stringLiteral(prefix)})`).join(' || ')]
  }

  function afterFilter ({ sort, after }: QueryPlan): string[] {
    if (after === undefined) return []
    const key = stringLiteral(keyPrefix + after.key)
    if (sort === undefined) return ['FILTER', `@__key > ${key}`]
    const attribute = '@' + sort.field.name
    if (after.value === undefined) return ['FILTER', `!exists(${attribute}) && @__key > ${key}`]
    const value = typeof after.value === 'number' ? numberLiteral(after.value) : stringLiteral(after.value)
    const beyond = sort.order === 'asc' ? '>' : '<'
    return ['FILTER', `!exists(${attribute}) || ${attribute} ${beyond} ${value} || (${attribute} == ${value} && @__key > ${key})`]
  }

  function rowOf (attributes: Map<string, unknown>, plan: QueryPlan): Row {
    const key = String(attributes.get('__key')).slice(keyPrefix.length)
    if (plan.sort === undefined) return { key }
    const value = attributes.get(plan.sort.field.name)
    if (typeof value !== 'string') return { key }
    return { key, value: plan.sort.field.type === 'number' ? Number(value) : value }
  }

  function compare (plan: QueryPlan) {
    const direction = plan.sort?.order === 'desc' ? -1 : 1
    return (a: Row, b: Row): number => {
      if (plan.sort !== undefined && a.value !== b.value) {
        if (a.value === undefined) return 1
        if (b.value === undefined) return -1
        const order = typeof a.value === 'number' && typeof b.value === 'number'
          ? a.value - b.value
          : compareBytes(String(a.value), String(b.value))
        if (order !== 0) return order * direction
      }
      return compareBytes(a.key, b.key)
    }
  }

  /** Whether the caller may read the row's document. */
  function readableRow (plan: Pick<QueryPlan, 'readable'>) {
    return (row: Row) => plan.readable === undefined || plan.readable.some((prefix) => (keyPrefix + row.key).startsWith(prefix))
  }

  /**
   * Every match of a query on a master of a Redis Cluster, whose Search module loads nothing of a key outside
   * its index name's slot, @__key included: FT.SEARCH still answers the keys and sort values (WITHSORTKEYS,
   * exact) of every match, up to maxClusterMatches, and they are ordered and cut here. The bound counts
   * every match, those the caller may not read too, as RediSearch's TIMEOUT does on one Redis.
   */
  async function clusterMatches (master: MasterNode, plan: Pick<QueryPlan, 'index' | 'sort' | 'readable'>, { query, params }: CompiledFilter): Promise<Row[]> {
    const sort = plan.sort === undefined ? [] : ['SORTBY', plan.sort.field.name, plan.sort.order.toUpperCase(), 'WITHSORTKEYS']
    const reply = await search(master, ['FT.SEARCH', plan.index.nameOn(master), query, 'NOCONTENT', ...sort,
      'LIMIT', '0', String(maxClusterMatches + 1), ...tail({ query, params })])
    if (Number(reply.get('total_results') ?? 0) > maxClusterMatches) {
      throw limitExceeded('MAX_CLUSTER_MATCHES', maxClusterMatches, `On a Redis Cluster a query may match at most ${maxClusterMatches} documents per master` +
        `${plan.sort?.field.type === 'number' ? ' sharing one value of its sort field' : ''} (those the credentials may not read included); narrow its filter`)
    }
    return searchRows(reply).filter(readableRow(plan))
  }

  /** A page on a Redis Cluster: every match of every master, ordered and cut here. */
  async function clusterPage (plan: QueryPlan, masters: MasterNode[]): Promise<{ rows: Row[], more: boolean }> {
    const order = compare(plan)
    const found = await Promise.all(masters.map((master) => clusterMatches(master, plan, plan.filter)))
    const after = plan.after
    const rows = found.flat()
      .filter((row) => after === undefined || order(row, after) > 0)
      .sort(order)
    return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit }
  }

  /** The exact number a document's sortable field holds in the index, from FT.SEARCH's sort keys. */
  async function exactNumber (master: MasterNode, plan: QueryPlan, key: string): Promise<number | undefined> {
    const reply = await search(master, ['FT.SEARCH', plan.index.nameOn(master), '*', 'INKEYS', '1', keyPrefix + key, 'NOCONTENT',
      'SORTBY', plan.sort!.field.name, 'WITHSORTKEYS', 'LIMIT', '0', '1', ...tail({ query: '*', params: [] })])
    const [first] = searchRows(reply)
    return typeof first?.value === 'number' ? first.value : undefined
  }

  /**
   * A page on one Redis: FT.AGGREGATE sorts on the field and the key. It prints numbers to 12 digits only,
   * so under a numeric sort the last row's exact value (the cursor's) is read with FT.SEARCH's sort keys;
   * should it no longer round to what the page saw (the document changed in between), the page is read again.
   */
  async function singlePage (plan: QueryPlan, master: MasterNode): Promise<{ rows: Row[], more: boolean }> {
    const max = String(plan.limit + 1)
    const order = plan.sort === undefined
      ? ['SORTBY', '2', '@__key', 'ASC', 'MAX', max, 'LIMIT', '0', max]
      : ['SORTBY', '4', '@' + plan.sort.field.name, plan.sort.order.toUpperCase(), '@__key', 'ASC', 'MAX', max, 'LIMIT', '0', max]
    for (let attempt = 0; ; attempt++) {
      const reply = await search(master, ['FT.AGGREGATE', plan.index.nameOn(master), plan.filter.query, 'LOAD', '1', '@__key',
        ...readableFilter(plan.readable), ...afterFilter(plan), ...order, ...tail(plan.filter)])
      const rows = resultsOf(reply).map((attributes) => rowOf(attributes, plan))
      const page = rows.slice(0, plan.limit)
      const more = rows.length > plan.limit
      const last = page.at(-1)
      if (plan.sort?.field.type !== 'number' || !more || last === undefined) return { rows: page, more }
      const exact = await exactNumber(master, plan, last.key)
      const printed = exact === undefined ? undefined : Number(exact.toPrecision(12))
      if (printed === last.value || attempt >= 2) {
        page[page.length - 1] = exact === undefined ? { key: last.key } : { key: last.key, value: exact }
        return { rows: page, more }
      }
    }
  }

  /** The keys and sort values (WITHSORTKEYS: `#` a number, `$` a string, exact) of an FT.SEARCH reply. */
  function searchRows (reply: Map<string, unknown>): Row[] {
    const results = reply.get('results')
    return (Array.isArray(results) ? results : []).map((result): Row => {
      const fields = fieldsOfReply(result)
      const key = String(fields.get('id')).slice(keyPrefix.length)
      const sortKey = fields.get('sortkey')
      if (typeof sortKey !== 'string' || sortKey.length === 0) return { key }
      return { key, value: sortKey[0] === '#' ? Number(sortKey.slice(1)) : sortKey.slice(1) }
    })
  }

  /** Documents matching `query` in key order after `afterKey`, at most `count`, each given `value`. */
  async function byKey (master: MasterNode, plan: QueryPlan, query: string, params: string[], afterKey: string | undefined,
    count: number, value: number | undefined): Promise<Row[]> {
    const valued = (key: string): Row => value === undefined ? { key } : { key, value }
    if (redis.isCluster) {
      const found = await clusterMatches(master, { index: plan.index, ...(plan.readable ? { readable: plan.readable } : {}) }, { query, params })
      return found.map((row) => row.key).filter((key) => afterKey === undefined || compareBytes(key, afterKey) > 0)
        .sort(compareBytes).slice(0, count).map(valued)
    }
    const max = String(count)
    const reply = await search(master, ['FT.AGGREGATE', plan.index.nameOn(master), query, 'LOAD', '1', '@__key',
      ...(afterKey === undefined ? [] : ['FILTER', `@__key > ${stringLiteral(keyPrefix + afterKey)}`]),
      'SORTBY', '2', '@__key', 'ASC', 'MAX', max, 'LIMIT', '0', max, ...tail({ query, params })])
    return resultsOf(reply).map((attributes) => valued(String(attributes.get('__key')).slice(keyPrefix.length)))
  }

  /**
   * A page under a numeric sort, on one master, for a caller reading the whole collection: FT.SEARCH sorts
   * on the field alone (a top-N, as fast as RediSearch sorts) and answers exact values (WITHSORTKEYS); only
   * the documents sharing a value at the page's edges are ordered by key, with a query on that one value.
   * Values beyond the position are asked for with a range; documents without a value come last, by key
   * (byKey, which on a cluster orders them here).
   */
  async function numericPage (plan: QueryPlan, sort: NonNullable<QueryPlan['sort']>, master: MasterNode): Promise<{ rows: Row[], more: boolean }> {
    const want = plan.limit + 1
    const attribute = '@' + sort.field.name
    const { query, params } = plan.filter
    // RediSearch takes `*` alone only.
    const and = (term: string) => query === '*' ? term : `(${query}) ${term}`
    const withValue = (range: string, extra: string[]) => ({ query: and(`${attribute}:${range}`), params: [...params, ...extra] })
    const tieGroup = (value: number, afterKey: string | undefined, count: number) => {
      const { query: tied, params: tiedParams } = withValue('[$sv $sv]', ['sv', String(value)])
      return byKey(master, plan, tied, tiedParams, afterKey, count, value)
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
        const reply = await search(master, ['FT.SEARCH', plan.index.nameOn(master), beyond.query, 'NOCONTENT', 'SORTBY', sort.field.name,
          sort.order.toUpperCase(), 'WITHSORTKEYS', 'LIMIT', '0', String(remaining), ...tail(beyond)])
        const found = searchRows(reply).filter((row) => typeof row.value === 'number')
        const order = compare(plan)
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
      rows.push(...await byKey(master, plan, missing.query, missing.params, after !== undefined && after.value === undefined ? after.key : undefined,
        want - rows.length, undefined))
    }
    return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit }
  }

  return {
    /** The page of at most `limit` rows after the plan's position, in order, and whether more follow. */
    async page (plan: QueryPlan): Promise<{ rows: Row[], more: boolean }> {
      const masters = await redisCall(redis.masters(), redisTimeoutMs)
      const sort = plan.sort
      if (sort?.field.type === 'number' && plan.readable === undefined) {
        if (!redis.isCluster) return await numericPage(plan, sort, masters[0]!)
        // Each master's first rows after the position, in order: the first of them all are the page.
        const pages = await Promise.all(masters.map((master) => numericPage(plan, sort, master)))
        const rows = pages.flatMap((page) => page.rows).sort(compare(plan))
        return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit || pages.some((page) => page.more) }
      }
      if (redis.isCluster) return await clusterPage(plan, masters)
      return await singlePage(plan, masters[0]!)
    },

    /** How many documents match the filter (and the caller may read), on every master. */
    async count (plan: Pick<QueryPlan, 'index' | 'filter' | 'readable'>): Promise<number> {
      const masters = await redisCall(redis.masters(), redisTimeoutMs)
      const counts = await Promise.all(masters.map(async (master) => {
        const name = plan.index.nameOn(master)
        if (plan.readable === undefined) {
          const reply = await search(master, ['FT.SEARCH', name, plan.filter.query, 'NOCONTENT', 'LIMIT', '0', '0', ...tail(plan.filter)])
          return Number(reply.get('total_results') ?? 0)
        }
        if (redis.isCluster) return (await clusterMatches(master, { index: plan.index, readable: plan.readable }, plan.filter)).length
        const reply = await search(master, ['FT.AGGREGATE', name, plan.filter.query, 'LOAD', '1', '@__key', ...readableFilter(plan.readable),
          'GROUPBY', '0', 'REDUCE', 'COUNT', '0', 'AS', 'n', ...tail(plan.filter)])
        const [first] = resultsOf(reply)
        return Number(first?.get('n') ?? 0)
      }))
      return counts.reduce((sum, count) => sum + count, 0)
    }
  }
}

export type QueryRunner = ReturnType<typeof createQueryRunner>

/** The attributes of each result of an FT.AGGREGATE reply (RESP3). */
function resultsOf (reply: Map<string, unknown>): Array<Map<string, unknown>> {
  const results = reply.get('results')
  if (!Array.isArray(results)) return []
  return results.map((result) => fieldsOfReply(fieldsOfReply(result).get('extra_attributes') ?? {}))
}
