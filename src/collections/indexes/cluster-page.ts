import type { MasterNode } from '../../redis/redis.js'
import { orderOf, type Page, type QueryPlan, type Row, type Searcher } from './search.js'

/** The page of a plan out of every match gathered (from any number of masters): ordered, after the position, cut. */
function pageOfMatches (found: readonly Row[], plan: QueryPlan): Page {
  const order = orderOf(plan)
  const after = plan.after
  const rows = found.filter((row) => after === undefined || order(row, after) > 0).sort(order)
  return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit }
}

/** A page on a Redis Cluster: every match of every master (Searcher.clusterMatches), ordered and cut here. */
export async function clusterPage (searcher: Searcher, plan: QueryPlan, masters: MasterNode[]): Promise<Page> {
  const found = await Promise.all(masters.map((master) => searcher.clusterMatches(master, plan, plan.filter)))
  return pageOfMatches(found.flat(), plan)
}
