import { ServiceBusyError } from '../../errors.js'
import type { BatchReadItem, DocumentStore } from '../../documents/store/index.js'

/** A pointer a query's `fields` names, and its tokens. */
export interface Projected {
  pointer: string
  tokens: string[]
}

/** A page's document as a query answers it: its key, version and (projected) value as JSON text. */
export interface ReadItem {
  key: string
  version: string
  json: string
}

/** Reads of a page that meet a document mid-write before every read of it agrees on one version. */
const MAX_ATTEMPTS = 6

/**
 * The page's documents, each with only the projected pointers (none present: `{}`), all read at the version
 * its ETag names: each pointer is read apart, so the versions are read once more after the last one, and a
 * document whose reads saw different versions is read again. A document gone meanwhile is left out.
 */
export async function readProjected (documents: DocumentStore, keys: readonly string[], projection: readonly Projected[]): Promise<ReadItem[]> {
  const found = new Map<string, ReadItem>()
  let pending = keys
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new ServiceBusyError(`${pending.length} of the page's documents kept changing while they were read; retry the query`)
    const reads: BatchReadItem[][] = []
    for (const { tokens } of projection) reads.push(await documents.readMany(pending, tokens))
    const after = await documents.versions(pending)
    const again: string[] = []
    pending.forEach((key, position) => {
      const items = reads.map((read) => read[position]!)
      // A document gone (or no longer JSON) at any read is left out, as a full read leaves it out.
      if (items.some((item) => item.status === 409 || item.version === undefined)) return
      const version = after[position]!
      if (items.some((item) => item.status !== 409 && item.version !== version)) {
        again.push(key)
        return
      }
      const members = items.flatMap((item, index) => item.status === 200 ? [`${JSON.stringify(projection[index]!.pointer)}:${item.json}`] : [])
      found.set(key, { key, version, json: `{${members.join(',')}}` })
    })
    pending = again
  }
  return keys.flatMap((key) => found.get(key) ?? [])
}
