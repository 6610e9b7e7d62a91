/// <reference lib="dom" />
import createClient from 'openapi-fetch'
import type { paths } from '../../openapi/client/schema.js'

/**
 * The page's script, bundled for the browser: with the generated client and the JWT the page was
 * given, creates, reads, patches and deletes a document under its own prefix, then tries one outside
 * it, and writes what each step answered into #result.
 */
declare global {
  interface Window { JSONDOCS: { baseUrl: string, jwt: string, key: string, outside: string } }
}

async function scenario (): Promise<Record<string, unknown>> {
  const { baseUrl, jwt, key, outside } = window.JSONDOCS
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${jwt}` } })
  const created = await client.PUT('/docs/{key}', { params: { path: { key } }, body: { name: 'Ann', tags: ['a'] } })
  const read = await client.GET('/docs/{key}', { params: { path: { key } } })
  const patched = await client.PATCH('/docs/{key}', {
    params: { path: { key } },
    body: { name: 'Bo' },
    headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': read.response.headers.get('etag') ?? '' }
  })
  const removed = await client.DELETE('/docs/{key}', { params: { path: { key } } })
  const gone = await client.GET('/docs/{key}', { params: { path: { key } } })
  const refused = await client.GET('/docs/{key}', { params: { path: { key: outside } } })
  return {
    created: created.response.status,
    location: created.response.headers.get('location'),
    read: read.data,
    etag: read.response.headers.get('etag'),
    patched: [patched.response.status, patched.data],
    removed: removed.response.status,
    gone: gone.response.status,
    refused: [refused.response.status, (refused.error as { code?: string } | undefined)?.code],
    requestId: refused.response.headers.get('x-request-id')
  }
}

scenario().then(
  (outcome) => { document.getElementById('result')!.textContent = JSON.stringify(outcome) },
  (error: Error) => { document.getElementById('result')!.textContent = JSON.stringify({ error: String(error) }) }
)
