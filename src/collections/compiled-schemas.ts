import type { DocumentValidator } from './validator.js'

/**
 * Compiled validators a worker keeps, by key, the least recently used dropped first. A compiled schema
 * holds 15 to 25 times its text in heap (a 54 kB schema, 1.2 MB; a 1 kB one, 10 to 60 kB with its ajv), so
 * the text bytes bound the memory: 4 MiB of text, about 100 MB at most.
 */
export const MAX_COMPILED_SCHEMAS = 64
export const MAX_COMPILED_TEXT_BYTES = 4 * 1024 * 1024

interface Entry {
  validate: DocumentValidator
  bytes: number
}

export class CompiledSchemas {
  readonly #entries = new Map<string, Entry>()
  #bytes = 0
  /** Keys kept and dropped since the last take(), for the pool's record of what this worker holds. */
  #kept: string[] = []
  #dropped: string[] = []

  get (key: string): DocumentValidator | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.validate
  }

  /** Keeps a validator; the newest is always kept, even alone over the bounds. */
  keep (key: string, text: string, validate: DocumentValidator): void {
    if (this.#entries.has(key)) return
    const bytes = Buffer.byteLength(text)
    this.#entries.set(key, { validate, bytes })
    this.#bytes += bytes
    this.#kept.push(key)
    for (const [oldest, entry] of this.#entries) {
      if (oldest === key || (this.#entries.size <= MAX_COMPILED_SCHEMAS && this.#bytes <= MAX_COMPILED_TEXT_BYTES)) break
      this.#entries.delete(oldest)
      this.#bytes -= entry.bytes
      this.#dropped.push(oldest)
    }
  }

  /** The keys kept and dropped since the last call. */
  take (): { kept: string[], dropped: string[] } {
    const changes = { kept: this.#kept, dropped: this.#dropped }
    this.#kept = []
    this.#dropped = []
    return changes
  }
}
