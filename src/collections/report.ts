import type { DocumentStore, ScanPosition } from '../documents/store/index.js'
import type { ValidationPool } from './validation-pool.js'
import type { SchemaSource } from './validation-protocol.js'
import type { Violation } from './validator.js'

/** How the documents already in a collection fare against a schema just registered. */
export interface ConformanceReport {
  /** Documents checked. */
  checked: number
  /** Of those, how many the schema rejects. */
  violating: number
  /** False when the collection holds more documents than one report checks, or checking them took too long. */
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
 * Checks the documents of a collection against a schema, a page of keys at a time and a chunk of
 * documents at a time (see readChunks), each chunk one job of a validation worker. The report has a
 * budget of its own (MAX_VALIDATION_MS): it stops there, or when no worker is free, with complete false.
 */
export async function conformanceReport (store: DocumentStore, validation: ValidationPool, keyPrefix: string,
  schema: SchemaSource): Promise<ConformanceReport> {
  const report: ConformanceReport = { checked: 0, violating: 0, complete: true, examples: [] }
  const budget = validation.budget()
  let bytes = 0
  let position: ScanPosition | undefined
  do {
    const page = await store.list(keyPrefix, position, PAGE_SIZE)
    for await (const chunk of store.readChunks(page.keys, [])) {
      const documents: Array<{ key: string, json: string }> = []
      for (const document of chunk) {
        if (document.status !== 200) continue
        if (report.checked + documents.length >= MAX_CHECKED || bytes >= MAX_CHECKED_BYTES) {
          report.complete = false
          break
        }
        bytes += document.json.length
        documents.push(document)
      }
      const { results, complete } = await validation.validate(documents.map(({ json }) => ({ schema, document: json })),
        budget, { maxErrors: MAX_EXAMPLE_ERRORS, partial: true })
      results.forEach((errors, index) => {
        report.checked++
        if (!errors) return
        report.violating++
        if (report.examples.length < MAX_EXAMPLES) report.examples.push({ key: documents[index]!.key, errors })
      })
      if (!complete || !report.complete) {
        report.complete = false
        return report
      }
    }
    position = page.next
  } while (position !== undefined)
  return report
}
