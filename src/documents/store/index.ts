import type { CommandSender, Redis } from '../../redis/redis.js'
import type { SchemaRules } from '../../collections/rules.js'
import type { ValidationPool } from '../../collections/validation-pool.js'
import type { DocumentStoreOptions } from './context.js'
import { createKeyedQueue } from './keyed-queue.js'
import { documentReads } from './reads.js'
import { documentWrites } from './writes.js'

export type { DocumentStoreOptions, VersionRecord } from './context.js'
export type { BatchReadItem, Description, Listing, ScanPosition, Snapshot, StoredValue } from './reads.js'
export type {
  BatchPutItem, BatchPutResult, PreparedOperation, PreparedPatchOperation, WriteConditions, WriteOptions, WriteResult
} from './writes.js'

/** The only caller of RedisJSON: turns addresses into keys and paths, and replies into results. */
export function createDocumentStore (redis: Redis, writer: CommandSender, options: DocumentStoreOptions,
  rules: SchemaRules, validation: ValidationPool) {
  const context = { redis, writer, rules, validation, validatedWrites: createKeyedQueue(), ...options }
  return { limits: options.limits, ...documentReads(context), ...documentWrites(context) }
}

export type DocumentStore = ReturnType<typeof createDocumentStore>
