import { collectionPath } from './address.js'
import { jsonOf, type Transport } from './http.js'
import type { AggregateAnswer, AggregateRequest, QueryItem, QueryPage, QueryRequest } from './types.js'

/** A collection's queries and aggregations (through its index). */
export class CollectionRef {
  readonly #transport: Transport
  readonly name: string

  constructor (transport: Transport, name: string) {
    this.#transport = transport
    this.name = name
  }

  /** Every document the query matches, page after page (`limit` is the page size), in the query's order. */
  async * query (query: QueryRequest = {}): AsyncGenerator<QueryItem, void, undefined> {
    let cursor: string | null = null
    do {
      const page: QueryPage = await this.page({ ...query, ...(cursor === null ? {} : { cursor }) })
      yield * page.items
      cursor = page.cursor
    } while (cursor !== null)
  }

  /** One page of a query: pass its `cursor` back for the next. */
  async page (query: QueryRequest & { cursor?: string }): Promise<QueryPage> {
    return await jsonOf<QueryPage>(await this.#transport.send('POST', collectionPath(this.name, 'query'), { body: query }))
  }

  /** Groups of the matching documents with their metrics: `{ groups, truncated }`. */
  async aggregate (request: AggregateRequest = {}): Promise<AggregateAnswer> {
    return await jsonOf<AggregateAnswer>(await this.#transport.send('POST', collectionPath(this.name, 'aggregate'), { body: request }))
  }
}
