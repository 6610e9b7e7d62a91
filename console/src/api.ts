import type { components } from '../../openapi/client/schema.js'
import { jsonOf, type Transport } from '../../client/src/http.js'
import { isNotFound } from './problems.js'

type Schemas = components['schemas']
export type DocumentPage = Schemas['DocumentPage']
export type TokenInfo = Schemas['TokenInfo']
export type TokenRequest = Schemas['TokenRequest']
export type CreatedToken = Schemas['CreatedToken']
export type Scope = Schemas['Scope']
export type IndexState = Schemas['IndexState']
export type IndexField = Schemas['IndexField']
export type QueryPage = Schemas['QueryPage']
export type SchemaRegistration = Schemas['SchemaRegistration']
export type CollectionEntry = Schemas['CollectionEntry']

const name = encodeURIComponent

/** Undefined for a 404; any other error is thrown. */
async function unlessMissing<T> (read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read()
  } catch (error) {
    if (isNotFound(error)) return undefined
    throw error
  }
}

/** The routes the client module leaves to callers (listing, TTL, tokens, schemas, indexes, the short query form). */
export function routes (http: Transport) {
  const read = async <T>(path: string) => await jsonOf<T>(await http.send('GET', path))
  return {
    listing: (prefix: string, cursor: string | null, limit: number) =>
      read<DocumentPage>(`/docs?${new URLSearchParams({ prefix, limit: String(limit), ...(cursor === null ? {} : { cursor }) })}`),
    /** Seconds left, null without a time to live, undefined without a document. */
    ttl: async (key: string) => (await unlessMissing(() => read<{ ttl: number | null }>(`/ttl/${name(key)}`)))?.ttl,
    tokens: async () => (await read<{ tokens: TokenInfo[] }>('/tokens')).tokens,
    createToken: async (request: TokenRequest) => await jsonOf<CreatedToken>(await http.send('POST', '/tokens', { body: request })),
    revokeToken: async (id: string) => { await http.send('DELETE', `/tokens/${name(id)}`) },
    collections: async () => (await read<{ collections: CollectionEntry[] }>('/schemas')).collections,
    schema: (collection: string) => unlessMissing(async () => {
      const response = await http.send('GET', `/schemas/${name(collection)}`)
      return { schema: await jsonOf<unknown>(response), etag: response.headers.get('etag') ?? undefined }
    }),
    putSchema: async (collection: string, schema: unknown, etag: string | undefined) =>
      await jsonOf<SchemaRegistration>(await http.send('PUT', `/schemas/${name(collection)}`, {
        body: schema, headers: etag === undefined ? { 'if-none-match': '*' } : { 'if-match': etag }
      })),
    index: (collection: string) => unlessMissing(() => read<IndexState>(`/collections/${name(collection)}/index`)),
    putIndex: async (collection: string, definition: unknown) =>
      await jsonOf<IndexState>(await http.send('PUT', `/collections/${name(collection)}/index`, { body: definition })),
    query: (collection: string, parameters: URLSearchParams) =>
      read<QueryPage>(`/collections/${name(collection)}/query?${parameters}`)
  }
}

export type Routes = ReturnType<typeof routes>
