import { limitExceeded } from '../../errors.js'
import type { MasterNode } from '../../redis/redis.js'
import type { QueryPlan, Searcher } from './search.js'

/*
 * RediSearch expands a prefix to at most MAXEXPANSIONS (200) of the values it indexes and silently matches
 * only their documents. Its reply does not say so (RediSearch 2.10 leaves `warning` empty); only the
 * profile of the query's iterators does: a union marked "Max prefix expansion reached", holding as many
 * iterators as the bound. So each `$prefix` of a filter is profiled alone on every master first (how far a
 * prefix expands depends on its field and value only), and the filter is refused when one reached the
 * bound there: never a partial page or count. Alone, because FT.PROFILE of some whole filters (a negation
 * in a union, in an intersection) crashes Redis 8.2 with RediSearch 2.10; a lone prefix profiles safely.
 */

const REACHED = /max prefix expansion/i
const ITERATORS = /(\d+)/

/** Refuses (422, `MAXEXPANSIONS`) a plan whose `$prefix` reached RediSearch's expansion bound on one of the masters. */
export async function refuseTruncatedPrefixes (searcher: Searcher, plan: Pick<QueryPlan, 'index' | 'filter'>, masters: readonly MasterNode[]): Promise<void> {
  const prefixes = plan.filter.prefixes ?? []
  const distinct = [...new Map(prefixes.map((prefix) => [`${prefix.attribute}\u0000${prefix.value}`, prefix])).values()]
  for (const { attribute, value } of distinct) {
    const reached = await Promise.all(masters.map(async (master) => {
      const profile = await searcher.search(master, ['FT.PROFILE', plan.index.nameOn(master), 'SEARCH', 'LIMITED', 'QUERY', `${attribute}:{$p0*}`,
        'NOCONTENT', 'LIMIT', '0', '0', ...searcher.tail({ query: '', params: ['p0', value] })])
      return truncatedUnion(profile)
    }))
    const bound = reached.find((found) => found !== undefined)
    if (bound === undefined) continue
    throw limitExceeded('MAXEXPANSIONS', bound, `A $prefix of the filter is shared by more distinct values than RediSearch expands (MAXEXPANSIONS, ${bound}` +
      `${reachedOnMany(reached)}), so it would find only some of their documents; use a longer prefix, or $in with the values`)
  }
}

function reachedOnMany (reached: ReadonlyArray<number | undefined>): string {
  const masters = reached.filter((found) => found !== undefined).length
  return reached.length > 1 ? ` on ${masters} of ${reached.length} masters` : ''
}

/** The number of iterators of a union the profile marks as at the expansion bound, if any. */
export function truncatedUnion (node: unknown): number | undefined {
  if (node instanceof Map) node = Object.fromEntries(node)
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = truncatedUnion(item)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof node !== 'object' || node === null) return undefined
  const members = Object.entries(node as Record<string, unknown>)
  if (members.some(([name, value]) => name === 'Warning' && REACHED.test(String(value)))) {
    const children = members.find(([name]) => name === 'Child iterators')?.[1]
    const count = typeof children === 'string' ? ITERATORS.exec(children)?.[1] : undefined
    return count === undefined ? 0 : Number(count)
  }
  for (const [, value] of members) {
    const found = truncatedUnion(value)
    if (found !== undefined) return found
  }
  return undefined
}
