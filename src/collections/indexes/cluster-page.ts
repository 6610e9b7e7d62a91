import type { MasterNode } from '../../redis/redis.js'
import { orderOf, type Page, type QueryPlan, type Searcher } from './search.js'

/** A page on a Redis Cluster: every match of every master (Searcher.clusterMatches), ordered and cut here. */
export async function clusterPage (searcher: Searcher, plan: QueryPlan, masters: MasterNode[]): Promise<Page> {
  const order = orderOf(plan)
  const found = await Promise.all(masters.map((master) => searcher.clusterMatches(master, plan, plan.filter)))
  const after = plan.after
  const rows = found.flat()
    .filter((row) => after === undefined || order(row, after) > 0)
    .sort(order)
  return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit }
}
