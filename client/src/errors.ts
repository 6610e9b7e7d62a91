import type { Problem } from './types.js'

/** An answer of the service outside 2xx, carrying its problem (RFC 9457). */
export class JsondocsError extends Error {
  readonly status: number
  readonly code: string
  readonly title: string
  readonly detail: string
  /** The problem as the service sent it, extension members included. */
  readonly problem: Problem

  constructor (problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`)
    this.name = 'JsondocsError'
    this.status = problem.status
    this.code = problem.code
    this.title = problem.title
    this.detail = problem.detail
    this.problem = problem
  }
}

/**
 * An error the client met rather than the service said: a problem of its own making (`about:blank`), with a
 * code outside the service's registry (`HTTP_502`, `NOT_A_STREAM`).
 */
export function clientError (fields: { status: number, code: string, title: string, detail: string }): JsondocsError {
  return new JsondocsError({ type: 'about:blank', ...fields } as unknown as Problem)
}

/** The error an answer outside 2xx stands for: its problem, or one made of its status when it has none (a proxy's page). */
export async function errorOf (response: Response): Promise<JsondocsError> {
  const text = await response.text()
  let problem: Partial<Problem> | undefined
  if (/json/.test(response.headers.get('content-type') ?? '')) {
    try { problem = JSON.parse(text) as Partial<Problem> } catch { problem = undefined }
  }
  if (problem?.code !== undefined && problem.status !== undefined) return new JsondocsError(problem as Problem)
  return clientError({ status: response.status, code: `HTTP_${response.status}`, title: response.statusText, detail: text.slice(0, 200) })
}
