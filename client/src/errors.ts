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

/** The error an answer outside 2xx stands for: its problem, or one made of its status when it has none (a proxy's page). */
export async function errorOf (response: Response): Promise<JsondocsError> {
  const text = await response.text()
  let problem: Partial<Problem> | undefined
  if (/json/.test(response.headers.get('content-type') ?? '')) {
    try { problem = JSON.parse(text) as Partial<Problem> } catch { problem = undefined }
  }
  return new JsondocsError({
    type: 'about:blank',
    title: response.statusText,
    detail: text.slice(0, 200),
    code: `HTTP_${response.status}`,
    ...problem,
    status: (problem?.status ?? response.status)
  } as Problem)
}
