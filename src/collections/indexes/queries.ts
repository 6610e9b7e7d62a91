import { BadRequestError, IndexBuildingError, NotFoundError } from '../../errors.js'
import { etagOf } from '../../http/conditional.js'
import { formatPointer, parsePointer } from '../../documents/pointer.js'
import type { DocumentStore } from '../../documents/store/index.js'
import type { AggregateRequest, Aggregations } from './aggregate.js'
import type { ShortAggregate } from './short-aggregate.js'
import { decodeCursor, encodeCursor, queryDigest } from './cursor.js'
import { compileFilter } from './filter.js'
import { readProjected } from './projection.js'
import type { QueryPlan, QueryRunner } from './query.js'
import type { IndexRepair } from './repair.js'
import type { ShortQuery } from './short-query.js'
import { indexMissing, isUnknownIndex } from './search-replies.js'
import type { ActiveIndex, IndexStorage } from './storage.js'

/** A query as its body says it. */
export interface QueryRequest {
  filter?: Record<string, unknown>
  sort?: Array<{ pointer: string, order?: 'asc' | 'desc' }>
  fields?: string[]
  limit?: number
  cursor?: string
}

/** A query as either form says it: the POST body, or the GET form's query string read. */
export type QuerySource = QueryRequest | ShortQuery

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100
/** Most pointers a query's `fields` names. */
export const MAX_FIELDS = 16

/** What a query answers, its items as JSON text read from RedisJSON. */
export interface QueryAnswer {
  /** The answer's JSON text. */
  text: string
}

/**
 * Runs a collection's queries: the filter compiled against the active index, a page searched on every
 * master, then its documents (or the requested pointers) read as RedisJSON holds them, each with the ETag
 * of its version. `readable` bounds the answer to keys under those document key prefixes. An index made
 * without companion attributes answers as it is, and is rebuilt beside.
 */
export function createQueries (storage: IndexStorage, runner: QueryRunner, documents: DocumentStore, keyPrefix: string, aggregations: Aggregations,
  repair: IndexRepair) {
  async function activeIndex (collection: string, fresh = false): Promise<ActiveIndex> {
    const index = await storage.active(collection, fresh)
    if (index === undefined) throw new NotFoundError(`Collection "${collection}" has no index`)
    if (index === 'missing') throw indexMissing(collection)
    if (index === 'building') throw new IndexBuildingError(`The index of collection "${collection}" is being built; GET its index to follow its progress`)
    if (!index.companions) repair.outdated(collection, index.generation)
    return index
  }

  function planOf (index: ActiveIndex, collection: string, request: QuerySource, readable: string[] | undefined): QueryPlan {
    // The GET form's filter is the one its POST form would send, so both compile, run and digest alike.
    const asked = 'filterOf' in request ? request.filterOf(index.fields) : request.filter
    const filter = compileFilter(asked ?? {}, index.fields, 'filterOf' in request ? request.placeName : undefined)
    let sort: QueryPlan['sort']
    const [first] = request.sort ?? []
    if (first !== undefined) {
      const tokens = parsePointer(first.pointer)
      const field = tokens === undefined ? undefined : index.fields.find((candidate) => candidate.pointer === formatPointer(tokens))
      if (field === undefined) throw new BadRequestError(`sort/0/pointer: ${JSON.stringify(first.pointer)} is not a field of the collection's index`)
      if (!field.sortable) throw new BadRequestError(`sort/0/pointer: the field ${JSON.stringify(field.pointer)} is not sortable in the collection's index`)
      sort = { field, order: first.order ?? 'asc' }
    }
    // Hashed only when a cursor is read or written (not for a last page, nor a count alone).
    let digested: string | undefined
    const digest = () => (digested ??= queryDigest(collection, asked, sort === undefined ? [] : [sort.field.pointer, sort.order]))
    const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, digest())
    if (after?.value !== undefined && (sort === undefined || typeof after.value !== (sort.field.type === 'number' ? 'number' : 'string'))) {
      throw new BadRequestError('The cursor is not one this query issued')
    }
    return {
      index, filter, limit: request.limit ?? DEFAULT_LIMIT, ...(sort ? { sort } : {}), ...(after ? { after } : {}),
      ...(readable ? { readable: readable.map((prefix) => keyPrefix + prefix) } : {}),
      digest
    } as QueryPlan & { digest: () => string }
  }

  /**
   * Runs work on the active index; once more on the index read again from Redis when a newer generation (or a
   * DELETE) dropped it meanwhile, or when a remembered definition refused the request (it may have changed).
   * An index still unknown then is missing from Redis.
   */
  async function onActiveIndex<T> (collection: string, work: (index: ActiveIndex) => Promise<T>): Promise<T> {
    const index = await activeIndex(collection)
    try {
      return await work(index)
    } catch (error) {
      if (!isUnknownIndex(error) && !(index.remembered && error instanceof BadRequestError)) throw error
      const again = await activeIndex(collection, true)
      try {
        return await work(again)
      } catch (error) {
        throw isUnknownIndex(error) ? indexMissing(collection) : error
      }
    }
  }

  return {
    /** The groups of an aggregation, as JSON text, over the documents under `readable` (document key prefixes) when given. */
    async aggregate (collection: string, source: AggregateRequest | ShortAggregate, readable: string[] | undefined): Promise<string> {
      return await onActiveIndex(collection, (index) => {
        const full = readable?.map((prefix) => keyPrefix + prefix)
        if (!('filterOf' in source)) return aggregations.run(index, source, full)
        const { filterOf, placeName, ...rest } = source
        return aggregations.run(index, { ...rest, filter: filterOf(index.fields) }, full, placeName)
      })
    },

    async run (collection: string, request: QuerySource, { readable, count }: { readable?: string[], count: boolean }): Promise<QueryAnswer> {
      if ((request.fields?.length ?? 0) > MAX_FIELDS) throw new BadRequestError(`fields: at most ${MAX_FIELDS} pointers`)
      const projection = (request.fields ?? []).map((pointer, position) => {
        const tokens = parsePointer(pointer)
        if (tokens === undefined) throw new BadRequestError(`fields/${position}: ${JSON.stringify(pointer)} is not a JSON Pointer`)
        return { pointer, tokens }
      })
      const { page, total, digest } = await onActiveIndex(collection, async (index) => {
        const plan = planOf(index, collection, request, readable) as QueryPlan & { digest: () => string }
        // Screened alongside: a refusal is rare, and the page it throws away costs less than waiting on every query.
        const [, page, total] = await Promise.all([
          runner.screen(plan),
          plan.limit === 0 ? { rows: [], more: false } : runner.page(plan),
          count ? runner.count(plan) : undefined
        ])
        return { page, total, digest: plan.digest }
      })
      const keys = page.rows.map((row) => row.key)
      const items: string[] = []
      if (projection.length === 0) {
        for (const item of await documents.readMany(keys, [])) {
          if (item.status === 200) items.push(itemText(item.key, item.version, item.json))
        }
      } else {
        for (const item of await readProjected(documents, keys, projection)) items.push(itemText(item.key, item.version, item.json))
      }
      const last = page.rows.at(-1)
      const cursor = page.more && last !== undefined ? JSON.stringify(encodeCursor(digest(), last)) : 'null'
      return { text: `{"items":[${items.join(',')}],"cursor":${cursor}${total === undefined ? '' : `,"count":${total}`}}` }
    }
  }
}

function itemText (key: string, version: string, json: string): string {
  return `{"key":${JSON.stringify(key)},"etag":${JSON.stringify(etagOf(version))},"value":${json}}`
}

export type Queries = ReturnType<typeof createQueries>
