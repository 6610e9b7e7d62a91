import { connect, type Socket } from 'node:net'
import type { Answer } from './rig.js'

/**
 * HTTP/1.1 over a bare socket, to send what no client library sends (broken framing, pipelines, bytes
 * a byte at a time) and to see exactly what comes back: every response whole, or the bytes that were
 * cut off.
 */

export interface RawResponse extends Answer {
  /** The status line and header section as sent. */
  head: string
}

export interface Exchange {
  responses: RawResponse[]
  /** Bytes after the last whole response: a response cut off, when not empty. */
  leftover: Buffer
  /** Whether the server closed the connection. */
  closed: boolean
}

/** Parses whole responses off the front of bytes; `heads` lists the requests answered without a body (HEAD). */
export function parseResponses (bytes: Buffer, bodiless: ReadonlySet<number> = new Set()): { responses: RawResponse[], rest: Buffer } {
  const responses: RawResponse[] = []
  let rest = bytes
  for (;;) {
    const end = rest.indexOf('\r\n\r\n')
    if (end === -1) break
    const head = rest.subarray(0, end).toString('latin1')
    const [statusLine = '', ...lines] = head.split('\r\n')
    const statusCode = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0)
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    let body: Buffer
    let after: Buffer
    const start = end + 4
    if (bodiless.has(responses.length) || statusCode === 204 || statusCode === 304 || (statusCode >= 100 && statusCode < 200)) {
      body = Buffer.alloc(0)
      after = rest.subarray(start)
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks = dechunk(rest.subarray(start))
      if (chunks === undefined) break
      ;[body, after] = chunks
    } else {
      const length = Number(headers['content-length'] ?? 0)
      if (rest.length < start + length) break
      body = rest.subarray(start, start + length)
      after = rest.subarray(start + length)
    }
    if (statusCode >= 100 && statusCode < 200) {
      rest = after
      continue
    }
    responses.push({ statusCode, headers, body: body.toString('utf8'), head })
    rest = after
  }
  return { responses, rest }
}

function dechunk (bytes: Buffer): [Buffer, Buffer] | undefined {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at)
    if (lineEnd === -1) return undefined
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16)
    at = lineEnd + 2
    if (size === 0) {
      const end = bytes.indexOf('\r\n', at)
      return end === -1 ? undefined : [Buffer.concat(parts), bytes.subarray(end + 2)]
    }
    if (bytes.length < at + size + 2) return undefined
    parts.push(bytes.subarray(at, at + size))
    at += size + 2
  }
}

export interface ExchangeOptions {
  /** Stop once this many responses are whole (the server may keep the connection open after them). */
  expect?: number
  /** Longest wait for the server, in ms. */
  waitMs?: number
  /** Indices of the responses that answer HEAD requests. */
  bodiless?: ReadonlySet<number>
  /** Sends the bytes in pieces of this size, this far apart, like a slow client. */
  trickle?: { bytes: number, everyMs: number }
}

/** Sends bytes on a new connection and gathers what comes back, until closed, `expect` responses, or waitMs. */
export async function exchange (port: number, payload: string | Buffer, options: ExchangeOptions = {}): Promise<Exchange & { socket: Socket }> {
  const { expect = Number.POSITIVE_INFINITY, waitMs = 5000, bodiless, trickle } = options
  const socket = connect({ host: '127.0.0.1', port })
  socket.on('error', () => {})
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const received: Buffer[] = []
  let closed = false
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, waitMs)
    const check = () => {
      if (closed || parseResponses(Buffer.concat(received), bodiless).responses.length >= expect) {
        clearTimeout(timer)
        resolve()
      }
    }
    socket.on('data', (chunk: Buffer) => { received.push(chunk); check() })
    socket.on('close', () => { closed = true; check() })
  })
  const bytes = Buffer.from(payload)
  if (trickle) {
    for (let at = 0; at < bytes.length && !closed; at += trickle.bytes) {
      socket.write(bytes.subarray(at, at + trickle.bytes))
      await new Promise((resolve) => setTimeout(resolve, trickle.everyMs))
    }
  } else {
    socket.write(bytes)
  }
  await done
  const { responses, rest } = parseResponses(Buffer.concat(received), bodiless)
  return { responses, leftover: rest, closed, socket }
}

/** A request's bytes: request line, headers (Host and Content-Length added unless given), body. */
export function request (method: string, target: string, headers: Record<string, string> = {}, body = ''): string {
  const all: Record<string, string> = { host: 'localhost', ...headers }
  if (body && !Object.keys(all).some((name) => /^(content-length|transfer-encoding)$/i.test(name))) {
    all['content-length'] = String(Buffer.byteLength(body))
  }
  return `${method} ${target} HTTP/1.1\r\n${Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`
}
