import type { FastifyBaseLogger } from 'fastify'
import { InvalidSchemaError, withExtensions, type ProblemExtensions } from '../errors.js'
import { collectionOf } from './collection.js'
import { mirroredState, type SchemaStorage, type StoredSchema } from './storage.js'
import type { ValidationPool } from './validation-pool.js'
import { schemaSourceOf, type SchemaSource } from './validation-protocol.js'

/**
 * What a write to a key must respect. `guard` is what the write's script checks against its slot's mirror
 * of the collection's schema (see storage.ts): '-' (no collection, nothing to check), else the schema's
 * `<generation>:<revision>` as these rules were loaded (revision '' when the collection has no schema). A
 * write whose guard no longer holds is redone with fresh rules, so no write lands validated against a
 * schema that has since changed.
 */
export interface WriteRules {
  collection?: string
  guard: string
  /** The schema writes are validated against, in the validation workers; none when nothing is checked. */
  schema?: SchemaSource
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
/** Schema text those rules may hold together (the workers hold the compiled schemas). */
const MAX_CACHED_SCHEMA_BYTES = 64 * 1024 * 1024

/** A stored schema as this instance checked it: the schema, or why this version refuses it. */
interface CompiledSchema {
  revision: string
  schema?: SchemaSource
  refusal?: string
}

export function createSchemaRules (storage: SchemaStorage, validation: ValidationPool, separator: string,
  log: FastifyBaseLogger): SchemaRules {
  const cache = new Map<string, Promise<WriteRules>>()
  const compiled = new Map<string, CompiledSchema>()
  let compiledBytes = 0
  const unguarded: WriteRules = { guard: '-' }

  const drop = (collection: string) => {
    compiledBytes -= compiled.get(collection)?.schema?.text.length ?? 0
    compiled.delete(collection)
  }
  const remember = (collection: string, entry: CompiledSchema) => {
    drop(collection)
    compiled.set(collection, entry)
    compiledBytes += entry.schema?.text.length ?? 0
    for (const [oldest] of compiled) {
      if (compiledBytes <= MAX_CACHED_SCHEMA_BYTES || oldest === collection) break
      drop(oldest)
      cache.delete(oldest)
    }
  }

  /*
   * A schema stored by an earlier version may break a rule added since (a pattern the linear-time engine
   * cannot run). It is never run another way, nor skipped: writes to its collection fail until it is
   * replaced. The refusal is kept per revision, so writes do not compile it again. A schema whose
   * compilation passes MAX_VALIDATION_MS is not kept: the next write tries again.
   */
  async function compile (collection: string, stored: StoredSchema): Promise<CompiledSchema> {
    const schema = schemaSourceOf(stored.text)
    try {
      await validation.compile(schema, 'nothing was written')
      return { revision: stored.revision, schema }
    } catch (error) {
      if (!(error instanceof InvalidSchemaError)) throw error
      const refusal = refusalOf(error)
      log.warn({ collection, revision: stored.revision, refusal },
        'the stored schema of a collection is refused by this version: writes to its documents fail until it is replaced')
      return { revision: stored.revision, refusal }
    }
  }

  async function load (collection: string): Promise<WriteRules> {
    const state = await storage.state(collection)
    const { stored } = state
    if (!stored) {
      drop(collection)
      return { collection, guard: mirroredState(state) }
    }
    let entry = compiled.get(collection)
    if (entry?.revision !== stored.revision) {
      entry = await compile(collection, stored)
      remember(collection, entry)
    }
    if (entry.refusal !== undefined) throw unusableSchema(collection, entry.refusal)
    return { collection, guard: mirroredState(state), schema: entry.schema }
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
          drop(oldest)
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
      if (mirroredState(await storage.state(rules.collection)) === rules.guard) return true
      this.forget(key)
      return false
    }
  }
}

/** What makes a stored schema unusable, in a sentence with pointers into the schema. */
function refusalOf (error: InstanceType<typeof InvalidSchemaError> & ProblemExtensions): string {
  const errors = (error.problemExtensions?.errors ?? []) as Array<{ pointer: string, detail: string }>
  const places = errors.slice(0, 3).map(({ pointer, detail }) => `${pointer}: ${detail}`)
  return [error.message, ...places].join('; ')
}

function unusableSchema (collection: string, refusal: string) {
  return withExtensions(new InvalidSchemaError(`The schema stored for collection "${collection}" breaks the rules ` +
    `of this version (${refusal}), probably registered before them. Writes to the collection's documents are ` +
    `refused until the schema is replaced (PUT /schemas/${collection})`), { collection })
}
