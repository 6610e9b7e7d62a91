import { parentPort } from 'node:worker_threads'
import { InvalidSchemaError, type ProblemExtensions } from '../errors.js'
import { CompiledSchemas } from './compiled-schemas.js'
import type { CompileJob, JobOutcome, ValidateJob, ValidationJob, WorkerMessage } from './validation-protocol.js'
import { compileDocumentSchema, createDocumentAjv, type DocumentValidator, type Violation } from './validator.js'

/*
 * A validation worker: compiles collection schemas and checks documents against them, off the service's
 * event loop. It runs one job at a time; the pool ends it when a job outlives its deadline.
 */
const port = parentPort
if (!port) throw new Error('validation-worker runs in a worker thread')

const compiled = new CompiledSchemas()
const checker = createDocumentAjv()
// The meta-schema, and ajv's code generation with it, warm up before the worker says it is ready, rather
// than in the time of its first job (40 ms).
compileDocumentSchema({ type: 'object', properties: { a: { type: 'string', format: 'email', pattern: '^a' } } }, checker)

function compile ({ key, text }: { key: string, text: string }): DocumentValidator {
  const validate = compiled.get(key)
  if (validate) return validate
  const fresh = compileDocumentSchema(JSON.parse(text), checker)
  compiled.keep(key, text, fresh)
  return fresh
}

function runCompile (job: CompileJob): JobOutcome {
  compile(job.schema)
  return { status: 'done', results: [] }
}

function runValidate (job: ValidateJob, started: number): JobOutcome {
  const texts = new Map(job.schemas.map((schema) => [schema.key, schema.text]))
  const results: Array<Violation[] | null> = []
  for (const item of job.items) {
    if (results.length > 0 && performance.now() - started >= job.budgetMs) break
    let validate = compiled.get(item.schema)
    if (!validate) {
      const text = texts.get(item.schema)
      if (text === undefined) return { status: 'missing' }
      validate = compile({ key: item.schema, text })
    }
    results.push(validate(JSON.parse(item.document))?.slice(0, job.maxErrors) ?? null)
  }
  return { status: 'done', results }
}

function run (job: ValidationJob): JobOutcome {
  const started = performance.now()
  try {
    return job.kind === 'compile' ? runCompile(job) : runValidate(job, started)
  } catch (error) {
    if (error instanceof InvalidSchemaError) {
      const { problemExtensions } = error as Error & ProblemExtensions
      return { status: 'invalid', refusal: { message: error.message, extensions: problemExtensions ?? {} } }
    }
    return { status: 'failed', message: (error as Error).message }
  }
}

port.on('message', (job: ValidationJob) => {
  const outcome = run(job)
  const message: WorkerMessage = { kind: 'outcome', id: job.id, outcome, ...compiled.take() }
  port.postMessage(message)
})
port.postMessage({ kind: 'ready' } satisfies WorkerMessage)
