import type { Json } from '../fixtures.js'

/** Which process answers a row's HTTP requests. */
export type Target = 'service' | 'cached' | 'ceiling' | 'floor'

export interface HttpRequestSpec {
  method: 'GET' | 'PUT' | 'POST'
  path: string
  body?: string
  headers?: Record<string, string>
}

/** One line of the results: an HTTP workload and, for the service, the same work sent straight to Redis. */
export interface RowSpec {
  /** Stable across runs: compare matches rows by it. */
  id: string
  family: string
  /** The HTTP request, as the CSV's title shows it. */
  title: string
  /** Requests cycled through by each connection (one for every row but the soak). */
  requests: HttpRequestSpec[]
  /** The RedisJSON command doing the same work: `args` is the command without its key, which goes second. */
  direct?: { key: string, args: string[], title: string }
  target: Target
  /** Overrides the run's concurrency (the ceiling sweep). */
  connections?: number
  kind: 'read' | 'write'
  /** The row runs for the soak's duration while RSS is sampled. */
  soak?: boolean
}

export interface Scenario {
  family: string
  /** A heading for tables and the chart. */
  title: string
  /** Documents written through the service before the family's rows run, by key. */
  documents: Record<string, Json>
  /** What else the family writes through the service (at its URL) before its rows run. */
  prepare?: (url: string, headers: Record<string, string>) => Promise<void>
  rows: RowSpec[]
}

const MINIMAL = { prefer: 'return=minimal' }
const JSON_BODY = { 'content-type': 'application/json' }

/** `/docs/{key}` plus a JSON Pointer given as its tokens, each percent-encoded. */
export function docPath (key: string, tokens: readonly string[] = []): string {
  const pointer = tokens.map((token) => '/' + encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'))).join('')
  return `/docs/${encodeURIComponent(key)}${pointer}`
}

function httpTitle (method: string, tokens: readonly string[], body?: string): string {
  const pointer = tokens.map((token) => '/' + token).join('')
  return `${method} /docs/{key}${pointer}${body === undefined ? '' : ' ' + body}`
}

interface Common {
  family: string
  name: string
  key: string
  target?: Target
  /** Names the document in titles, where a family has several (`40 kB`). */
  document?: string
}

const about = (document: string | undefined) => document === undefined ? '' : ` (${document})`

/** GET of a location, beside JSON.GET with RedisJSON's legacy path (the published benchmark's commands). */
export function readRow ({ family, name, key, target = 'service', document }: Common, tokens: string[], redisPath: string): RowSpec {
  return {
    id: `${family}/${name}`,
    family,
    title: httpTitle('GET', tokens) + about(document),
    requests: [{ method: 'GET', path: docPath(key, tokens) }],
    direct: { key, args: ['JSON.GET', redisPath], title: `JSON.GET {key} ${redisPath}${about(document)}` },
    target,
    kind: 'read'
  }
}

/**
 * PUT of a location with `return=minimal`, beside JSON.SET: both answer only that the write happened,
 * so the rows compare the same work (the service's default answer also carries the value written).
 */
export function writeRow ({ family, name, key, target = 'service', document }: Common, tokens: string[], body: string, redisPath: string): RowSpec {
  const shown = body.length > 24 ? `{${body.length} B}` : body
  return {
    id: `${family}/${name}`,
    family,
    title: httpTitle('PUT', tokens, shown) + about(document),
    requests: [{ method: 'PUT', path: docPath(key, tokens), body, headers: { ...JSON_BODY, ...MINIMAL } }],
    direct: { key, args: ['JSON.SET', redisPath, body], title: `JSON.SET {key} ${redisPath} ${shown}${about(document)}` },
    target,
    kind: 'write'
  }
}

/** POST of one operation, beside the RedisJSON command it maps to. */
export function operationRow ({ family, name, key, target = 'service' }: Common, operation: Json, command: string[]): RowSpec {
  const body = JSON.stringify(operation)
  return {
    id: `${family}/${name}`,
    family,
    title: `POST /docs/{key} ${body}`,
    requests: [{ method: 'POST', path: docPath(key), body, headers: JSON_BODY }],
    direct: { key, args: command, title: `${command[0]} {key} ${command.slice(1).join(' ')}` },
    target,
    kind: 'write'
  }
}
