import type { DocumentStore } from '../documents/store/index.js'
import type { DocumentValidator, Violation } from './validator.js'

/** How the documents already in a collection fare against a schema just registered. */
export interface ConformanceReport {
  /** Documents checked. */
  checked: number
  /** Of those, how many the schema rejects. */
  violating: number
  /** False when the collection holds more documents than one report checks. */
  complete: boolean
  /** The first rejected documents and why. */
  examples: Array<{ key: string, errors: Violation[] }>
}

const MAX_CHECKED = 10_000
/** Bytes of documents one report parses and validates, at most: a report is a bounded piece of work. */
const MAX_CHECKED_BYTES = 32 * 1024 * 1024
const PAGE_SIZE = 500
const MAX_EXAMPLES = 10
const MAX_EXAMPLE_ERRORS = 5

/**
 * Checks the documents of a collection against a validator, a page of keys at a time and a chunk of
 * documents at a time (see readChunks), letting other requests run between chunks.
 */
export async function conformanceReport (store: DocumentStore, keyPrefix: string,
  validate: DocumentValidator): Promise<ConformanceReport> {
  const report: ConformanceReport = { checked: 0, violating: 0, complete: true, examples: [] }
  let bytes = 0
  let cursor = '0'
  do {
    const page = await store.list(keyPrefix, cursor, PAGE_SIZE)
    for await (const documents of store.readChunks(page.keys, [])) {
      for (const document of documents) {
        if (document.status !== 200) continue
        if (report.checked >= MAX_CHECKED || bytes >= MAX_CHECKED_BYTES) {
          report.complete = false
          return report
        }
        report.checked++
        bytes += document.json.length
        const errors = validate(JSON.parse(document.json))
        if (!errors) continue
        report.violating++
        if (report.examples.length < MAX_EXAMPLES) {
          report.examples.push({ key: document.key, errors: errors.slice(0, MAX_EXAMPLE_ERRORS) })
        }
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    cursor = page.cursor ?? '0'
  } while (cursor !== '0')
  return report
}
