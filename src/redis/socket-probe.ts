import { existsSync } from 'node:fs'
import { connect } from 'node:net'

/** What is at a Redis unix socket: nothing, a Redis that answers PING, or a listener that does not answer. */
export type SocketState = 'absent' | 'answers' | 'silent'

const ANSWER_TIMEOUT_MS = 1000

/** Whether a Redis answers on the socket (a Redis still loading its data answers -LOADING: silent). */
export async function probeSocket (socketPath: string, timeoutMs = ANSWER_TIMEOUT_MS): Promise<SocketState> {
  const { connected, reply } = await exchange(socketPath, 'PING\r\n', (bytes) => bytes.includes('\r\n'), timeoutMs)
  if (!connected) return 'absent'
  return reply?.startsWith('+PONG') ? 'answers' : 'silent'
}

/** How many clients besides the one asking are connected to the Redis on the socket; undefined when it does not answer. */
export async function otherClients (socketPath: string, timeoutMs = ANSWER_TIMEOUT_MS): Promise<number | undefined> {
  const { reply } = await exchange(socketPath, 'CLIENT ID\r\nCLIENT LIST\r\n', (bytes) => clientList(bytes) !== undefined, timeoutMs)
  const list = reply === undefined ? undefined : clientList(reply)
  if (list === undefined) return undefined
  return list.lines.filter((line) => !line.startsWith(`id=${list.ownId} `)).length
}

/** The replies to CLIENT ID and CLIENT LIST, once both have fully arrived. */
function clientList (reply: string): { ownId: string, lines: string[] } | undefined {
  const header = /^:(\d+)\r\n\$(\d+)\r\n/.exec(reply)
  if (!header) return undefined
  const body = reply.slice(header[0].length)
  if (body.length < Number(header[2]) + 2) return undefined
  return { ownId: header[1]!, lines: body.slice(0, Number(header[2])).split('\n').filter(Boolean) }
}

interface Exchange {
  connected: boolean
  /** What Redis answered, once complete() held; undefined when it did not in time. */
  reply?: string
}

/** Sends inline commands on a fresh connection and collects the answer, within timeoutMs. */
function exchange (socketPath: string, request: string, complete: (reply: string) => boolean, timeoutMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    if (!existsSync(socketPath)) return resolve({ connected: false })
    const socket = connect(socketPath)
    let connected = false
    // CLIENT LIST is ASCII (client names cannot hold anything else), so latin1 keeps byte lengths.
    let reply = ''
    const done = (answered: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(answered ? { connected, reply } : { connected })
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    socket.once('error', () => done(false))
    socket.once('close', () => done(complete(reply)))
    socket.once('connect', () => { connected = true; socket.write(request) })
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1')
      if (complete(reply)) done(true)
    })
  })
}
