import type { IncomingMessage } from 'node:http'
import type { ServerProblem } from './server-problems.js'

/** `http://authority` or `https://authority` at the start of an absolute-form target. */
const SCHEME_AND_AUTHORITY = /^https?:\/\/[^/?#]*/i
/** The one transfer coding the service reads: Node de-chunks a body but decodes no other coding. */
const CHUNKED = /^[ \t]*chunked[ \t]*$/i
/** A Host value (RFC 9110 section 7.2): a name, an IPv4 address or a bracketed IP literal, then a port. */
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(?::[0-9]*)?$/

function malformed (detail: string): ServerProblem {
  return { code: 'DOCS_ERR_MALFORMED_HTTP', detail }
}

/** The Host field lines of a request, from its raw headers (Node keeps only the first in `headers`). */
function hostLines (request: IncomingMessage): { count: number, value: string | undefined } {
  const raw = request.rawHeaders
  let count = 0
  let value: string | undefined
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) {
      count++
      value = raw[index + 1]
    }
  }
  return { count, value }
}

/**
 * What RFC 9112 asks of a request before any route sees it: HTTP/1.0 or 1.1; exactly one Host line
 * with a valid value (section 3.2), which HTTP/1.1 must send; no transfer coding but chunked (section
 * 6.1 would answer others 501; Node decodes none of them); and a target in origin form. A target in
 * absolute form (`http://host/docs/k`) is accepted as section 3.2.2 requires and reduced to its path and
 * query. Anything else is the problem returned; undefined when the request may go on.
 */
export function screenRequest (request: IncomingMessage): ServerProblem | undefined {
  if (request.httpVersionMajor !== 1) return malformed(`HTTP/${request.httpVersion} is not spoken here: send HTTP/1.1`)
  const host = hostLines(request)
  if (host.count > 1) return malformed('The request has more than one Host header field')
  if (host.count === 0 && request.httpVersionMinor === 1) return malformed('An HTTP/1.1 request needs a Host header field')
  if (host.value !== undefined && !HOST_VALUE.test(host.value)) return malformed('The Host header field is not a valid host')
  const codings = request.headers['transfer-encoding']
  if (codings !== undefined && !CHUNKED.test(codings)) {
    return malformed(`The only transfer coding read here is chunked, not ${JSON.stringify(codings)}`)
  }
  const target = request.url ?? ''
  if (target.startsWith('/')) return undefined
  const absolute = SCHEME_AND_AUTHORITY.exec(target)
  if (absolute !== null) {
    const rest = target.slice(absolute[0].length)
    request.url = rest.startsWith('/') ? rest : '/' + rest
    return undefined
  }
  if (target === '*' && request.method === 'OPTIONS') return undefined
  return malformed('The request target must be a path, or an absolute http or https URL')
}
