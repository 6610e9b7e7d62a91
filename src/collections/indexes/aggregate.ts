import { BadRequestError, limitExceeded } from '../../errors.js'
import { formatPointer, parsePointer } from '../../documents/pointer.js'
import type { DocumentStore } from '../../documents/store/index.js'
import type { MasterNode } from '../../redis/redis.js'
import { jsonPathOf, type IndexField } from './definition.js'
import { compileFilter } from './filter.js'
import { refuseUnanswerable } from './screen.js'
import { countInto, orderGroups, type GroupFieldType, type GroupKey, type Groups, type MetricSpec } from './groups.js'
import type { Searcher } from './search.js'
import { readableFilter } from './single-page.js'
import type { ActiveIndex } from './storage.js'

/*
 * Aggregations: the documents a filter matches, grouped by up to two tag or boolean fields, with counts,
 * sums, means, minima and maxima of number fields. RediSearch's own reducers are not used: they count a
 * missing number as 0, print numbers to 12 digits and take a tag array as one value. The service reads each
 * match's fields instead (on one Redis, FT.AGGREGATE loads them, a cursor page at a time; on a cluster,
 * whose Search module loads nothing outside its index's slot, the matches' keys are gathered and their
 * fields read from the documents) and reduces them exactly. What it reads is bounded by MAX_AGGREGATE_MATCHES.
 */

export type MetricOperator = '$count' | '$sum' | '$avg' | '$min' | '$max'

export interface AggregateRequest {
  filter?: Record<string, unknown>
  groupBy?: string[]
  metrics?: Record<string, Partial<Record<MetricOperator, unknown>>>
  sort?: Array<{ metric?: string, pointer?: string, order?: 'asc' | 'desc' }>
  limit?: number
}

export const MAX_GROUP_BY = 2
export const MAX_METRICS = 16
export const DEFAULT_GROUPS = 100
export const MAX_GROUPS_ANSWERED = 1000
/** Distinct groups an aggregation may hold while it reads, whatever its limit. */
export const MAX_GROUPS_HELD = 10_000
/** Rows one read of a cursor answers. */
const CURSOR_PAGE = 1000
/** How long RediSearch keeps a cursor nobody reads (an aggregation that failed halfway). */
const CURSOR_IDLE_MS = 10_000

export interface AggregateOptions {
  /** Most documents an aggregation reads. */
  maxMatches: number
}

/** An aggregation, checked against the index: the fields it groups by and reads, its metrics, its order. */
interface AggregatePlan {
  groupBy: IndexField[]
  /** The number fields metrics read. */
  numbers: IndexField[]
  metrics: MetricSpec[]
  sort: Array<{ metric?: string, position?: number, order: 'asc' | 'desc' }>
  limit: number
}

function fieldAt (index: ActiveIndex, pointer: string, at: string): IndexField {
  const tokens = parsePointer(pointer)
  const field = tokens === undefined ? undefined : index.fields.find((candidate) => candidate.pointer === formatPointer(tokens))
  if (field === undefined) throw new BadRequestError(`${at}: ${JSON.stringify(pointer)} is not a field of the collection's index`)
  return field
}

function planOf (index: ActiveIndex, request: AggregateRequest): AggregatePlan {
  const groupBy = (request.groupBy ?? []).map((pointer, position) => {
    const field = fieldAt(index, pointer, `groupBy/${position}`)
    if (field.type !== 'tag' && field.type !== 'boolean') {
      throw new BadRequestError(`groupBy/${position}: ${JSON.stringify(field.pointer)} is a ${field.type} field; groups are made by tag and boolean fields`)
    }
    return field
  })
  if (new Set(groupBy).size < groupBy.length) throw new BadRequestError('groupBy: a field is named twice')
  const numbers: IndexField[] = []
  const metrics = Object.entries(request.metrics ?? {}).map(([name, metric]): MetricSpec => {
    const [operator, ...more] = Object.keys(metric) as MetricOperator[]
    if (operator === undefined || more.length > 0) throw new BadRequestError(`metrics/${name}: one operator of $count $sum $avg $min $max`)
    if (operator === '$count') return { name, operator }
    const pointer = metric[operator]
    if (typeof pointer !== 'string') throw new BadRequestError(`metrics/${name}/${operator}: a pointer of a number field`)
    const field = fieldAt(index, pointer, `metrics/${name}/${operator}`)
    if (field.type !== 'number') throw new BadRequestError(`metrics/${name}/${operator}: ${JSON.stringify(field.pointer)} is a ${field.type} field, not a number field`)
    if (!numbers.includes(field)) numbers.push(field)
    return { name, operator, number: numbers.indexOf(field) }
  })
  const sort = (request.sort ?? []).map(({ metric, pointer, order = 'asc' }, position) => {
    if ((metric === undefined) === (pointer === undefined)) throw new BadRequestError(`sort/${position}: name either a metric or a groupBy pointer`)
    if (metric !== undefined) {
      if (!metrics.some((spec) => spec.name === metric)) throw new BadRequestError(`sort/${position}/metric: ${JSON.stringify(metric)} is not a metric of the request`)
      return { metric, order }
    }
    const field = fieldAt(index, pointer!, `sort/${position}/pointer`)
    if (!groupBy.includes(field)) throw new BadRequestError(`sort/${position}/pointer: ${JSON.stringify(field.pointer)} is not in groupBy`)
    return { position: groupBy.indexOf(field), order }
  })
  return { groupBy, numbers, metrics, sort, limit: request.limit ?? DEFAULT_GROUPS }
}

/** A match's values, as the document holds them (undefined: nothing there), groupBy's fields first, then the numbers. */
type Row = unknown[]

export function createAggregations (searcher: Searcher, documents: DocumentStore, masters: () => Promise<MasterNode[]>, options: AggregateOptions) {
  const tooMany = () => limitExceeded('MAX_AGGREGATE_MATCHES', options.maxMatches,
    `An aggregation may read at most ${options.maxMatches} documents (those the credentials may not read included on a Redis Cluster); narrow its filter`)

  /** On one Redis: FT.AGGREGATE loads the fields of every match (DIALECT 3: each as a JSON array of what the document holds). */
  async function * loadedRows (master: MasterNode, index: ActiveIndex, query: ReturnType<typeof compileFilter>, fields: IndexField[], readable: string[] | undefined): AsyncGenerator<Row[]> {
    const name = index.nameOn(master)
    // By JSONPath: an attribute's name would load a sortable field from the index, its numbers printed to 12 digits.
    const loads = [...(readable === undefined ? [] : ['@__key']), ...fields.flatMap((field, position) => [jsonPathOf(field.tokens), 'AS', `v${position}`])]
    const tail = searcher.tail(query).slice(0, -1).concat('3')
    let reply = await searcher.search(master, ['FT.AGGREGATE', name, query.query, ...(loads.length > 0 ? ['LOAD', String(loads.length), ...loads] : []),
      ...readableFilter(readable), 'WITHCURSOR', 'COUNT', String(CURSOR_PAGE), 'MAXIDLE', String(CURSOR_IDLE_MS), ...tail])
    for (;;) {
      const results = reply.get('results')
      yield (Array.isArray(results) ? results : []).map((result) => {
        const attributes = attributesOf(result)
        return fields.map((_, position) => {
          const loaded = attributes.get(`v${position}`)
          return typeof loaded === 'string' ? firstOf(loaded) : undefined
        })
      })
      const cursor = String(reply.get('cursor') ?? '0')
      if (cursor === '0') return
      reply = await searcher.search(master, ['FT.CURSOR', 'READ', name, cursor, 'COUNT', String(CURSOR_PAGE)])
    }
  }

  /** On a cluster's master: the keys of the matches there, then their fields read from the documents. */
  async function * readRows (master: MasterNode, index: ActiveIndex, query: ReturnType<typeof compileFilter>, fields: IndexField[], readable: string[] | undefined): AsyncGenerator<Row[]> {
    const matches = await searcher.clusterMatches(master, { index, ...(readable ? { readable } : {}) }, query)
    for (let from = 0; from < matches.length; from += CURSOR_PAGE) {
      const keys = matches.slice(from, from + CURSOR_PAGE).map((row) => row.key)
      const columns = await Promise.all(fields.map((field) => documents.readMany(keys, field.tokens)))
      yield keys.map((_, position) => columns.map((column) => {
        const item = column[position]!
        return item.status === 200 ? JSON.parse(item.json) as unknown : undefined
      }))
    }
  }

  return {
    /** The groups as JSON text; placeName words a place of the filter as its short form's parameter, when it came so. */
    async run (index: ActiveIndex, request: AggregateRequest, readable: string[] | undefined, placeName?: (at: string) => string): Promise<string> {
      const plan = planOf(index, request)
      const filter = compileFilter(request.filter ?? {}, index.fields, placeName)
      const all = await masters()
      // Groups are made of the values the documents hold, read from them: only the filter's comparisons are screened.
      await refuseUnanswerable(searcher, documents, { index, filter, readable }, all)
      const fields = [...plan.groupBy, ...plan.numbers]
      const groups: Groups = new Map()
      const types = plan.groupBy.map((field) => field.type as GroupFieldType)
      let read = 0
      for (const master of all) {
        const rows = searcher.isCluster ? readRows(master, index, filter, fields, readable) : loadedRows(master, index, filter, fields, readable)
        for await (const page of rows) {
          read += page.length
          if (read > options.maxMatches) throw tooMany()
          for (const row of page) {
            if (!countInto(groups, types, row, MAX_GROUPS_HELD)) {
              throw limitExceeded('MAX_AGGREGATE_GROUPS', MAX_GROUPS_HELD, `An aggregation may make at most ${MAX_GROUPS_HELD} groups; group by fewer or narrower fields`)
            }
          }
        }
      }
      const ordered = orderGroups(groups, plan.metrics, plan.sort)
      const answered = ordered.slice(0, plan.limit).map((group) => groupText(plan, group.key, group.values))
      return `{"groups":[${answered.join(',')}],"truncated":${ordered.length > plan.limit}}`
    }
  }
}

function groupText (plan: AggregatePlan, key: GroupKey, values: ReadonlyArray<number | null>): string {
  const keyText = plan.groupBy.map((field, position) => `${JSON.stringify(field.pointer)}:${JSON.stringify(key[position])}`).join(',')
  const metrics = plan.metrics.map((metric, position) => `,${JSON.stringify(metric.name)}:${JSON.stringify(values[position])}`).join('')
  return `{"key":{${keyText}}${metrics}}`
}

/** The first element of a JSON array's text as DIALECT 3 loads a field (`["a"]`, `[["x","y"]]`, `[12.5]`); undefined when empty. */
function firstOf (loaded: string): unknown {
  const values = JSON.parse(loaded) as unknown
  return Array.isArray(values) && values.length > 0 ? values[0] as unknown : undefined
}

function attributesOf (result: unknown): Map<string, unknown> {
  const extra = result instanceof Map ? result.get('extra_attributes') : (result as Record<string, unknown>)?.extra_attributes
  if (extra instanceof Map) return extra as Map<string, unknown>
  return new Map(Object.entries((extra ?? {}) as Record<string, unknown>))
}

export type Aggregations = ReturnType<typeof createAggregations>
