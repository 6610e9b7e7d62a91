import { errorOf } from './errors.js'
import type { ConnectOptions } from './types.js'

/** What every call needs: where the service is, the credentials, and fetch. */
export interface Transport {
  url (path: string): string
  send (method: string, path: string, init?: { headers?: Record<string, string>, body?: unknown, contentType?: string, signal?: AbortSignal }): Promise<Response>
}

/** Requests to the service, with the bearer token; answers outside 2xx throw their problem. */
export function transport ({ baseUrl = '', token, fetch: fetcher = globalThis.fetch }: ConnectOptions): Transport {
  const base = baseUrl.replace(/\/+$/, '')
  const url = (path: string) => base + path
  return {
    url,
    async send (method, path, { headers = {}, body, contentType = 'application/json', signal } = {}) {
      const bearer = typeof token === 'function' ? await token() : token
      const response = await fetcher(url(path), {
        method,
        headers: {
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          ...(body === undefined ? {} : { 'content-type': contentType }),
          ...headers
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {})
      })
      if (!response.ok) throw await errorOf(response)
      return response
    }
  }
}

/** The body of a JSON answer; undefined when it has none. */
export async function jsonOf<T> (response: Response): Promise<T> {
  const text = await response.text()
  return (text === '' ? undefined : JSON.parse(text)) as T
}
