import type { Rig, Answer } from './rig.js'
import { answerOf } from './rig.js'
import { encodeSegment } from './generators/addresses.js'

export type Method = 'GET' | 'HEAD' | 'PUT' | 'PATCH' | 'POST' | 'DELETE' | 'OPTIONS'

export interface HostileRequest {
  method: Method
  url: string
  body?: string | Buffer
  headers?: Record<string, string>
}

/** Sends a request through inject, as bytes: bodies are never re-serialised. */
export async function inject (rig: Rig, request: HostileRequest): Promise<Answer> {
  const response = await rig.app.inject({
    method: request.method,
    url: request.url,
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { payload: request.body })
  })
  return answerOf(response)
}

/**
 * Seeds a document through the service, so that it has its version record and size bounds as a
 * client's document would; answers whether it was stored (a hostile key or value may be refused).
 */
export async function seedDocument (rig: Rig, key: string | undefined, json: string, query = ''): Promise<boolean> {
  if (key === undefined || !key.isWellFormed()) return false
  const answer = await inject(rig, {
    method: 'PUT', url: `/docs/${encodeSegment(key, 'full')}${query}`, body: json, headers: { 'content-type': 'application/json' }
  })
  if (answer.statusCode >= 500) throw new Error(`seeding ${JSON.stringify(key)} answered ${answer.statusCode}: ${answer.body}`)
  return answer.statusCode < 300
}

/** Index tokens small enough to lay out as an array when seeding a document along a pointer. */
const SMALL_INDEX = /^[0-5]$/

/**
 * A document in which the pointer's tokens lead somewhere: objects along the way, or an array where a
 * token is a small index and `arrays` says so; a mixed leaf at the end.
 */
export function documentAlong (tokens: readonly string[], arrays: boolean): string {
  let inner = '{"n":1,"f":1.5,"big":9223372036854775807,"s":"text","a":[1,"two",{"three":3}],"o":{"x":null},"b":true}'
  for (let index = Math.min(tokens.length, 110) - 1; index >= 0; index--) {
    const token = tokens[index]!
    inner = arrays && SMALL_INDEX.test(token)
      ? `[${[...Array(Number(token)).fill('null'), inner].join(',')}]`
      : `{${JSON.stringify(token)}:${inner},"sibling":[0]}`
  }
  return inner
}
