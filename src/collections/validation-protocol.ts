import { createHash } from 'node:crypto'
import type { Violation } from './validator.js'

/**
 * A collection schema as the validation workers take it: `key` names its compiled validator (a digest of
 * the text, so a schema compiled to check it at registration serves the report and the writes after it),
 * `text` is the schema as registered, sent to a worker that does not hold it yet.
 */
export interface SchemaSource {
  key: string
  text: string
}

/** A document to check, against the schema of that key. */
export interface ValidationItem {
  schema: string
  document: string
}

/** Checks a schema (meta-schema, patterns) and compiles it; a usable one is kept under its key. */
export interface CompileJob {
  kind: 'compile'
  id: number
  schema: SchemaSource
}

/**
 * Checks documents in order. `schemas` holds the texts of the keys the worker does not hold. The worker
 * stops between documents once `budgetMs` has passed (the pool's deadline stops it within one).
 */
export interface ValidateJob {
  kind: 'validate'
  id: number
  schemas: SchemaSource[]
  items: ValidationItem[]
  /** Violations answered per document, at most. */
  maxErrors: number
  budgetMs: number
}

export type ValidationJob = CompileJob | ValidateJob

/** Why a schema is unusable: the message and the problem's extension members (`errors` into the schema). */
export interface SchemaRefusal {
  message: string
  extensions: Record<string, unknown>
}

export type JobOutcome =
  /** Violations of each document checked, in order (null when it conforms); fewer than the items when stopped. */
  | { status: 'done', results: Array<Violation[] | null> }
  | { status: 'invalid', refusal: SchemaRefusal }
  /** The job named a key the worker does not hold, without its text. */
  | { status: 'missing' }
  | { status: 'failed', message: string }

export type WorkerMessage =
  | { kind: 'ready' }
  /** A job's outcome, and the keys of compiled schemas the worker kept and dropped meanwhile. */
  | { kind: 'outcome', id: number, outcome: JobOutcome, kept: string[], dropped: string[] }

/** A schema text as the workers take it, named by its SHA-256. */
export function schemaSourceOf (text: string): SchemaSource {
  return { key: createHash('sha256').update(text).digest('base64url'), text }
}
