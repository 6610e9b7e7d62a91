import type { DocumentStore } from '../../documents/store/index.js'
import type { MasterNode } from '../../redis/redis.js'
import { refuseUnsearchable } from './control-values.js'
import { refuseTruncatedPrefixes } from './expansion.js'
import type { QueryPlan, Searcher } from './search.js'

/**
 * Refuses a query or an aggregation RediSearch would answer only in part (a `$prefix` past its expansion
 * bound) or wrongly (a document holding a tag value it indexes in part), with both checks at once.
 */
export async function refuseUnanswerable (searcher: Searcher, documents: DocumentStore,
  plan: Pick<QueryPlan, 'index' | 'filter' | 'sort' | 'readable'>, masters: readonly MasterNode[]): Promise<void> {
  await Promise.all([refuseTruncatedPrefixes(searcher, plan, masters), refuseUnsearchable(searcher, documents, plan, masters)])
}
