import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { whenDone } from './cleanup.js'

export interface RawResponse {
  status: number
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>
  body: string
  /** Parses the body, typed as inject's responses are. */
  json: LightMyRequestResponse['json']
}

const HEAD_END = Buffer.from('\r\n\r\n')

/** The port the app listens on, listening first if it does not yet. */
export async function portOf (app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 })
  return (app.server.address() as AddressInfo).port
}

/**
 * A client connection speaking raw bytes, as hostile clients do: what it sends is sent as given, and
 * what comes back is parsed into responses (interim 1xx ones included) in the order they arrive.
 */
export class RawConnection {
  readonly #socket: Socket
  #buffer = Buffer.alloc(0)
  readonly #responses: RawResponse[] = []
  readonly opened = Date.now()
  /** Milliseconds from opening to the server closing the connection, once it has. */
  closedAfter: number | undefined

  private constructor (socket: Socket) {
    this.#socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#parse()
    })
    socket.on('error', () => {})
    socket.on('close', () => { this.closedAfter = Date.now() - this.opened })
  }

  /** Opens a connection to the app (listening on loopback first), closed when the test ends. */
  static async open (app: FastifyInstance): Promise<RawConnection> {
    const port = await portOf(app)
    const socket = connect(port, '127.0.0.1')
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    const connection = new RawConnection(socket)
    whenDone(() => socket.destroy())
    return connection
  }

  get closed (): boolean {
    return this.closedAfter !== undefined
  }

  /** Responses received so far. */
  get received (): readonly RawResponse[] {
    return this.#responses
  }

  send (bytes: string | Buffer): this {
    this.#socket.write(bytes)
    return this
  }

  /** Stops reading what the server sends: its answers pile up in the socket buffers. */
  stopReading (): void {
    this.#socket.pause()
  }

  resumeReading (): void {
    this.#socket.resume()
  }

  /** Waits until `count` responses have arrived, or the connection has closed, or the time is up. */
  async responses (count: number, timeoutMs = 10_000): Promise<RawResponse[]> {
    await this.#until(() => this.#responses.length >= count || this.closed, timeoutMs)
    return [...this.#responses]
  }

  /** Waits until the server closes the connection; the milliseconds since opening, or undefined if it did not. */
  async whenClosed (timeoutMs = 10_000): Promise<number | undefined> {
    await this.#until(() => this.closed, timeoutMs)
    return this.closedAfter
  }

  destroy (): void {
    this.#socket.destroy()
  }

  async #until (done: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  }

  #parse (): void {
    for (;;) {
      const end = this.#buffer.indexOf(HEAD_END)
      if (end < 0) return
      const [statusLine, ...lines] = this.#buffer.subarray(0, end).toString('latin1').split('\r\n')
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1])
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      const bodyStart = end + HEAD_END.length
      const body = this.#bodyOf(status, headers, bodyStart)
      if (body === undefined) return
      this.#buffer = this.#buffer.subarray(body.end)
      const text = body.bytes.toString('utf8')
      this.#responses.push({ status, headers, body: text, json: () => JSON.parse(text) as never })
    }
  }

  /** The body after a head, and where it ends; undefined until all of it has arrived. */
  #bodyOf (status: number, headers: Record<string, string>, start: number): { bytes: Buffer, end: number } | undefined {
    if (status < 200 || status === 204 || status === 304) return { bytes: Buffer.alloc(0), end: start }
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') return this.#chunked(start)
    const length = Number(headers['content-length'] ?? 0)
    if (this.#buffer.length < start + length) return undefined
    return { bytes: this.#buffer.subarray(start, start + length), end: start + length }
  }

  #chunked (start: number): { bytes: Buffer, end: number } | undefined {
    const parts: Buffer[] = []
    let at = start
    for (;;) {
      const lineEnd = this.#buffer.indexOf('\r\n', at)
      if (lineEnd < 0) return undefined
      const size = parseInt(this.#buffer.subarray(at, lineEnd).toString('latin1'), 16)
      if (size === 0) {
        const end = this.#buffer.indexOf(HEAD_END, lineEnd)
        return end < 0 ? undefined : { bytes: Buffer.concat(parts), end: end + HEAD_END.length }
      }
      if (this.#buffer.length < lineEnd + 2 + size + 2) return undefined
      parts.push(this.#buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
      at = lineEnd + 2 + size + 2
    }
  }
}

/** An HTTP/1.1 request as raw text, with a Host and, when there is a body, its Content-Length. */
export function rawRequest (method: string, target: string, headers: Record<string, string> = {}, body?: string): string {
  const all = { host: 'localhost', ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) }
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `${method} ${target} HTTP/1.1\r\n${lines}\r\n${body ?? ''}`
}
