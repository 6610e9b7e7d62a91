import type { Json } from '../fixtures.js'
import { docPath } from '../scenarios/scenario.js'

/** Writes fixture documents through the service, by key, failing on any answer but 2xx. */
export async function putDocuments (url: string, documents: Record<string, Json>, headers: Record<string, string> = {}): Promise<void> {
  for (const [key, value] of Object.entries(documents)) {
    const response = await fetch(url + docPath(key), {
      method: 'PUT',
      body: JSON.stringify(value),
      headers: { ...headers, 'content-type': 'application/json', prefer: 'return=minimal' }
    })
    if (!response.ok) throw new Error(`writing fixture ${key} answered ${response.status}: ${await response.text()}`)
  }
}
