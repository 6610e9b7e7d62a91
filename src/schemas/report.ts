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
const PAGE_SIZE = 500
const MAX_EXAMPLES = 10
const MAX_EXAMPLE_ERRORS = 5

/** Checks the documents of a collection against a validator, a page of keys at a time. */
export async function conformanceReport (store: DocumentStore, keyPrefix: string,
  validate: DocumentValidator): Promise<ConformanceReport> {
  const report: ConformanceReport = { checked: 0, violating: 0, complete: true, examples: [] }
  let cursor = '0'
  do {
    const page = await store.list(keyPrefix, cursor, PAGE_SIZE)
    const documents = await store.readMany(page.keys, [])
    for (const document of documents) {
      if (document.status !== 200) continue
      report.checked++
      const errors = validate(JSON.parse(document.json))
      if (!errors) continue
      report.violating++
      if (report.examples.length < MAX_EXAMPLES) {
        report.examples.push({ key: document.key, errors: errors.slice(0, MAX_EXAMPLE_ERRORS) })
      }
    }
    cursor = page.cursor ?? '0'
    if (cursor !== '0' && report.checked >= MAX_CHECKED) report.complete = false
  } while (cursor !== '0' && report.complete)
  return report
}
