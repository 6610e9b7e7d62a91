import type { DocumentStore } from '../../documents/store/index.js'
import { redisCall } from '../../redis/deadline.js'
import type { Redis } from '../../redis/redis.js'
import { clusterPage } from './cluster-page.js'
import { numericPage } from './numeric-page.js'
import { refuseUnanswerable } from './screen.js'
import { createSearcher, orderOf, resultsOf, type Page, type QueryOptions, type QueryPlan } from './search.js'
import { readableFilter, singlePage } from './single-page.js'

export type { QueryPlan } from './search.js'

/*
 * How a query runs. The order is the sort field's value (absent and null values last, whatever the
 * direction), then the key, byte by byte; the filter's values all reach RediSearch as PARAMS. On one Redis,
 * FT.AGGREGATE sorts on both (see singlePage); a numeric sort, the common case, has a faster plan (see
 * numericPage). On a Redis Cluster, where RediSearch answers from its own shard only, every master is
 * searched: under a numeric sort each answers its first rows by the same plan and they are merged;
 * otherwise the service orders every match they answer (see clusterPage).
 */

/** Runs the searches of the collection's queries on every master. */
export function createQueryRunner (redis: Redis, options: QueryOptions, documents: DocumentStore) {
  const searcher = createSearcher(redis.isCluster, options)
  const masters = () => redisCall(redis.masters(), options.redisTimeoutMs)

  return {
    /**
     * Refuses a plan RediSearch would answer only in part (a `$prefix` past its expansion bound) or wrongly (a
     * document holding a tag value it indexes in part).
     */
    async screen (plan: Pick<QueryPlan, 'index' | 'filter' | 'sort' | 'readable'>): Promise<void> {
      await refuseUnanswerable(searcher, documents, plan, await masters())
    },

    /** The page of at most `limit` rows after the plan's position, in order, and whether more follow. */
    async page (plan: QueryPlan): Promise<Page> {
      const all = await masters()
      const sort = plan.sort
      if (sort?.field.type === 'number' && plan.readable === undefined) {
        if (!redis.isCluster) return await numericPage(searcher, plan, sort, all[0]!)
        // Each master's first rows after the position, in order: the first of them all are the page.
        const pages = await Promise.all(all.map((master) => numericPage(searcher, plan, sort, master)))
        const rows = pages.flatMap((page) => page.rows).sort(orderOf(plan))
        return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit || pages.some((page) => page.more) }
      }
      if (redis.isCluster) return await clusterPage(searcher, plan, all)
      return await singlePage(searcher, plan, all[0]!)
    },

    /** How many documents match the filter (and the caller may read), on every master. */
    async count (plan: Pick<QueryPlan, 'index' | 'filter' | 'readable'>): Promise<number> {
      const counts = await Promise.all((await masters()).map(async (master) => {
        const name = plan.index.nameOn(master)
        if (plan.readable === undefined) {
          const reply = await searcher.search(master, ['FT.SEARCH', name, plan.filter.query, 'NOCONTENT', 'LIMIT', '0', '0', ...searcher.tail(plan.filter)])
          return Number(reply.get('total_results') ?? 0)
        }
        if (redis.isCluster) return (await searcher.clusterMatches(master, { index: plan.index, readable: plan.readable }, plan.filter)).length
        const reply = await searcher.search(master, ['FT.AGGREGATE', name, plan.filter.query, 'LOAD', '1', '@__key', ...readableFilter(plan.readable),
          'GROUPBY', '0', 'REDUCE', 'COUNT', '0', 'AS', 'n', ...searcher.tail(plan.filter)])
        const [first] = resultsOf(reply)
        return Number(first?.get('n') ?? 0)
      }))
      return counts.reduce((sum, count) => sum + count, 0)
    }
  }
}

export type QueryRunner = ReturnType<typeof createQueryRunner>
