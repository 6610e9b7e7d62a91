import { collectionOf } from './collection.js'
import type { SchemaStorage } from './storage.js'
import { compileDocumentSchema, type DocumentValidator } from './validator.js'

/**
 * What a write to a key must respect. `guard` is what the write's script checks against the schema's
 * revision in Redis: '-' (no collection, nothing to check), '' (the collection has no schema) or the
 * revision the validator was compiled from. A write whose guard no longer holds is redone with fresh
 * rules, so no write lands validated against a schema that has since changed.
 */
export interface WriteRules {
  collection?: string
  schemaKey: string
  guard: string
  validate?: DocumentValidator
}

export interface SchemaRules {
  /** The rules of a key outside any collection, and of writes no schema can concern. */
  readonly unguarded: WriteRules
  rulesFor (key: string): Promise<WriteRules>
  /** Drops what this instance knows of a key's collection, after a script found it stale. */
  forget (key: string): void
  /** Whether rules still hold the schema's current revision; when not, forgets them. */
  confirm (key: string, rules: WriteRules): Promise<boolean>
}

/** Collections whose rules an instance keeps; the least recently loaded go first. */
const MAX_CACHED_COLLECTIONS = 1000

export function createSchemaRules (storage: SchemaStorage, separator: string): SchemaRules {
  const cache = new Map<string, Promise<WriteRules>>()
  const compiled = new Map<string, { revision: string, validate: DocumentValidator }>()
  const unguarded: WriteRules = { schemaKey: storage.keyOf(''), guard: '-' }

  async function load (collection: string): Promise<WriteRules> {
    const schemaKey = storage.keyOf(collection)
    const stored = await storage.get(collection)
    if (!stored) {
      compiled.delete(collection)
      return { collection, schemaKey, guard: '' }
    }
    let entry = compiled.get(collection)
    if (entry?.revision !== stored.revision) {
      entry = { revision: stored.revision, validate: compileDocumentSchema(JSON.parse(stored.text)) }
      compiled.set(collection, entry)
    }
    return { collection, schemaKey, guard: stored.revision, validate: entry.validate }
  }

  return {
    unguarded,

    rulesFor (key) {
      const collection = collectionOf(key, separator)
      if (collection === undefined) return Promise.resolve(unguarded)
      let rules = cache.get(collection)
      if (!rules) {
        rules = load(collection)
        const pending = rules
        pending.catch(() => { if (cache.get(collection) === pending) cache.delete(collection) })
        cache.set(collection, rules)
        if (cache.size > MAX_CACHED_COLLECTIONS) {
          const oldest = cache.keys().next().value as string
          cache.delete(oldest)
          compiled.delete(oldest)
        }
      }
      return rules
    },

    forget (key) {
      const collection = collectionOf(key, separator)
      if (collection !== undefined) cache.delete(collection)
    },

    async confirm (key, rules) {
      if (rules.collection === undefined) return true
      const current = await storage.revisionOf(rules.collection)
      if (current === (rules.guard || undefined)) return true
      this.forget(key)
      return false
    }
  }
}
