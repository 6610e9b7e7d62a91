import { limitExceeded } from '../../errors.js'
import { redisCall } from '../../redis/deadline.js'
import type { MasterNode } from '../../redis/redis.js'
import type { IndexField } from './definition.js'
import type { CompiledFilter } from './filter.js'
import { compareBytes, type Position } from './cursor.js'
import { fieldsOfReply, isUnknownIndex } from './search-replies.js'
import type { ActiveIndex } from './storage.js'

/** A query as its plans run it: the filter compiled against the active index, the sort, the position, the page's size. */
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

/** At most `limit` rows after the plan's position, in order, and whether more follow. */
export interface Page {
  rows: Row[]
  more: boolean
}

export interface QueryOptions {
  keyPrefix: string
  /** RediSearch's TIMEOUT for each command, in ms. */
  timeoutMs: number
  /** Longest wait for Redis. */
  redisTimeoutMs: number
  /** On a Redis Cluster, most matches of a query (or of one sort value) one master answers for the service to order. */
  maxClusterMatches: number
}

/** How the plans of a query send their searches to a master and read the answers. */
export interface Searcher {
  readonly keyPrefix: string
  readonly isCluster: boolean
  /** One FT.SEARCH or FT.AGGREGATE on a master; past QUERY_TIMEOUT_MS, a refusal (422). */
  search (master: MasterNode, args: string[]): Promise<Map<string, unknown>>
  /** What every search ends with: TIMEOUT, the filter's PARAMS, DIALECT 2. */
  tail (filter: CompiledFilter): string[]
  /** The keys and sort values (WITHSORTKEYS: `#` a number, `$` a string, exact) of an FT.SEARCH reply. */
  rows (reply: Map<string, unknown>): Row[]
  /**
   * Every match of a filter on a master of a Redis Cluster, whose Search module loads nothing of a key
   * outside its index name's slot, @__key included: FT.SEARCH still answers the keys and sort values of
   * every match (under the plan's sort, if any), up to MAX_CLUSTER_MATCHES (past it, 422); those the caller
   * may read are kept. The bound counts every match, those the caller may not read too, as RediSearch's
   * TIMEOUT does on one Redis.
   */
  clusterMatches (master: MasterNode, plan: MatchesOf, filter: CompiledFilter): Promise<Row[]>
}

/** What of a plan says which matches to gather. */
type MatchesOf = Pick<QueryPlan, 'index' | 'sort' | 'readable'>

const TIMED_OUT = /timeout/i

export function createSearcher (isCluster: boolean, { keyPrefix, timeoutMs, redisTimeoutMs, maxClusterMatches }: QueryOptions): Searcher {
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
    // WITHCURSOR and FT.CURSOR READ answer [the reply, the cursor's id]: the id is answered as `cursor`.
    const cursor = Array.isArray(reply) && reply.length === 2 && typeof reply[0] === 'object' && typeof reply[1] === 'number' ? reply[1] : undefined
    const fields = fieldsOfReply(cursor === undefined ? reply : (reply as unknown[])[0])
    if (cursor !== undefined) fields.set('cursor', cursor)
    const warnings = fields.get('warning')
    if (Array.isArray(warnings) && warnings.some((warning) => TIMED_OUT.test(String(warning)))) throw tooSlow()
    return fields
  }

  const tail = (filter: CompiledFilter) => [
    'TIMEOUT', String(timeoutMs), ...(filter.params.length > 0 ? ['PARAMS', String(filter.params.length), ...filter.params] : []), 'DIALECT', '2'
  ]

  function rows (reply: Map<string, unknown>): Row[] {
    const results = reply.get('results')
    return (Array.isArray(results) ? results : []).map((result): Row => {
      const key = String(memberOf(result, 'id')).slice(keyPrefix.length)
      const sortKey = memberOf(result, 'sortkey')
      if (typeof sortKey !== 'string' || sortKey.length === 0) return { key }
      return { key, value: sortKey[0] === '#' ? Number(sortKey.slice(1)) : sortKey.slice(1) }
    })
  }

  async function clusterMatches (master: MasterNode, plan: MatchesOf, { query, params }: CompiledFilter): Promise<Row[]> {
    const sort = plan.sort === undefined ? [] : ['SORTBY', plan.sort.field.name, plan.sort.order.toUpperCase(), 'WITHSORTKEYS']
    const reply = await search(master, ['FT.SEARCH', plan.index.nameOn(master), query, 'NOCONTENT', ...sort,
      'LIMIT', '0', String(maxClusterMatches + 1), ...tail({ query, params })])
    if (Number(reply.get('total_results') ?? 0) > maxClusterMatches) {
      throw limitExceeded('MAX_CLUSTER_MATCHES', maxClusterMatches, `On a Redis Cluster a query may match at most ${maxClusterMatches} documents per master` +
        `${plan.sort?.field.type === 'number' ? ' sharing one value of its sort field' : ''} (those the credentials may not read included); narrow its filter`)
    }
    const { readable } = plan
    return rows(reply).filter((row) => readable === undefined || readable.some((prefix) => (keyPrefix + row.key).startsWith(prefix)))
  }

  return { keyPrefix, isCluster, search, tail, rows, clusterMatches }
}

/** The order of rows under a plan's sort: the sort value (none last, whatever the direction), then the key, byte by byte. */
export function orderOf (plan: Pick<QueryPlan, 'sort'>): (a: Row, b: Row) => number {
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

/** One member of a RESP3 map reply (an object or a Map), or of a RESP2 flat list of names and values: many results cost no copy. */
function memberOf (reply: unknown, name: string): unknown {
  if (reply instanceof Map) return reply.get(name)
  if (Array.isArray(reply)) {
    for (let index = 0; index + 1 < reply.length; index += 2) if (reply[index] === name) return reply[index + 1]
    return undefined
  }
  return typeof reply === 'object' && reply !== null ? (reply as Record<string, unknown>)[name] : fieldsOfReply(reply).get(name)
}

/** The attributes of each result of an FT.AGGREGATE reply (RESP3). */
export function resultsOf (reply: Map<string, unknown>): Array<Map<string, unknown>> {
  const results = reply.get('results')
  if (!Array.isArray(results)) return []
  return results.map((result) => fieldsOfReply(memberOf(result, 'extra_attributes') ?? {}))
}
