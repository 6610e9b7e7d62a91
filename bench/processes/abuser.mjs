// Hostile clients for bench/abuse.ts, in a process of their own so that their work does not slow the
// probe that measures the service. Plain JavaScript so it runs on bare node. One IPC message starts one
// bounded attack; `stop` ends it, and the answer counts what happened.
import { Buffer } from 'node:buffer'
import http from 'node:http'
import net from 'node:net'
import process from 'node:process'
import { clearInterval, setInterval, setTimeout } from 'node:timers'
import { setTimeout as sleep } from 'node:timers/promises'

let stopping = false
const sockets = new Set()

/** A raw connection that counts itself, reopened by the attack when the service closes it. */
function open (port, onClose) {
  const socket = net.connect(port, '127.0.0.1')
  const openedAt = Date.now()
  sockets.add(socket)
  socket.on('error', () => {})
  socket.on('close', () => { sockets.delete(socket); onClose?.(Date.now() - openedAt) })
  // Reads (and drops) whatever comes, so that the service's closing is seen at once.
  socket.resume()
  return socket
}

/** Keeps `count` keep-alive connections open, each having read one document and then idle. */
async function idleConnections ({ port, path, count }) {
  const stats = { opened: 0, answered: 0, closedByService: 0 }
  const connect = () => {
    if (stopping) return
    stats.opened++
    const socket = open(port, () => { if (!stopping) { stats.closedByService++; setTimeout(connect, 100) } })
    socket.once('data', () => { stats.answered++ })
    socket.write(`GET ${path} HTTP/1.1\r\nHost: abuse\r\n\r\n`)
  }
  for (let index = 0; index < count && !stopping; index++) {
    connect()
    if (index % 100 === 99) await sleep(50)
  }
  return stats
}

/** `count` clients each uploading a megabyte document again and again, as fast as answers come. */
async function uploads ({ port, count, bytes }) {
  const body = Buffer.from(JSON.stringify({ blob: 'x'.repeat(bytes - 12) }))
  const agent = new http.Agent({ keepAlive: true, maxSockets: count })
  const stats = { stored: 0, busy: 0, other: 0, errors: 0 }
  const client = async (index) => {
    while (!stopping) {
      const status = await new Promise((resolve) => {
        const request = http.request({
          host: '127.0.0.1', port, agent, method: 'PUT', path: `/docs/abuse:upload:${index}`,
          headers: { 'content-type': 'application/json', 'content-length': body.length, prefer: 'return=minimal' }
        }, (response) => { response.resume(); response.on('end', () => resolve(response.statusCode)) })
        request.on('error', () => resolve(0))
        request.end(body)
      })
      if (status >= 200 && status < 300) stats.stored++
      else if (status === 503) { stats.busy++; await sleep(100) } else if (status === 0) { stats.errors++; await sleep(100) } else stats.other++
    }
  }
  await Promise.all(Array.from({ length: count }, (_, index) => client(index)))
  agent.destroy()
  return stats
}

/** `count` connections sending a header section a byte a second, reopened when the service closes them. */
async function slowloris ({ port, count }) {
  const held = []
  const stats = { opened: 0 }
  const connect = () => {
    if (stopping) return
    stats.opened++
    const socket = open(port, (ms) => { if (!stopping) { held.push(ms); setTimeout(connect, 100) } })
    socket.write('GET /health HTTP/1.1\r\nHost: abuse\r\nX-Slow: ')
    const drip = setInterval(() => { if (socket.destroyed) clearInterval(drip); else socket.write('x') }, 1000)
    socket.on('close', () => clearInterval(drip))
  }
  const started = Date.now()
  for (let index = 0; index < count && !stopping; index++) connect()
  while (!stopping) await sleep(100)
  held.sort((a, b) => a - b)
  return {
    ...stats,
    closedByService: held.length,
    heldMedianMs: held[held.length >> 1] ?? null,
    heldMaxMs: held.at(-1) ?? null,
    stillOpen: sockets.size,
    attackMs: Date.now() - started
  }
}

/** `count` connections each sending `depth` reads in one write, again whenever all are answered. */
async function pipelining ({ port, path, count, depth }) {
  const stats = { answered: 0, rounds: 0 }
  const burst = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: abuse\r\n\r\n`.repeat(depth))
  const client = async () => {
    while (!stopping) {
      await new Promise((resolve) => {
        const socket = open(port)
        let seen = 0
        let tail = ''
        socket.on('data', (chunk) => {
          const text = tail + chunk.toString('latin1')
          const answers = text.split('HTTP/1.1 ').length - 1
          seen += answers
          stats.answered += answers
          tail = text.slice(-9)
          if (seen >= depth || stopping) socket.destroy()
        })
        socket.on('close', resolve)
        socket.write(burst)
      })
      stats.rounds++
    }
  }
  await Promise.all(Array.from({ length: count }, () => client()))
  return stats
}

/** A request's status, 0 when it failed; the body is read and dropped. */
function send (agent, port, method, path, body) {
  return new Promise((resolve) => {
    const request = http.request({
      host: '127.0.0.1', port, agent, method, path,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
    }, (response) => { response.resume(); response.on('end', () => resolve(response.statusCode)) })
    request.on('error', () => resolve(0))
    request.end(body)
  })
}

/** `count` clients sending `body` to `path(index)` again and again, counting the answers by status. */
async function repeat (port, count, method, path, body) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: count })
  const stats = {}
  const client = async (index) => {
    while (!stopping) {
      const status = await send(agent, port, method, path(index), body)
      stats[status] = (stats[status] ?? 0) + 1
      if (status === 0 || status === 503) await sleep(100)
    }
  }
  await Promise.all(Array.from({ length: count }, (_, index) => client(index)))
  agent.destroy()
  return stats
}

/**
 * `count` clients writing a document whose validation doubles with each of `depth` levels of `$ref`
 * fan-out (`$defs` d0..d{depth}, each an `allOf` of two `$ref`s to the next): a few hundred bytes of
 * schema, seconds of work for one number.
 */
async function validationBombs ({ port, count, depth }) {
  const defs = { [`d${depth}`]: { type: 'number' } }
  for (let level = 0; level < depth; level++) defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }] }
  const schema = JSON.stringify({ type: 'object', $defs: defs, properties: { n: { $ref: '#/$defs/d0' } } })
  const registered = await send(undefined, port, 'PUT', '/schemas/abusebombs', schema)
  if (registered !== 201 && registered !== 200) throw new Error(`registering the schema answered ${registered}`)
  return repeat(port, count, 'PUT', (index) => `/docs/abusebombs:${index}`, '{"n":1}')
}

/** `count` clients registering a schema of `properties` properties (550 kB for 10,000), which takes ajv seconds to compile. */
async function hugeSchemas ({ port, count, properties }) {
  const schema = JSON.stringify({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: properties }, (_, index) => [`p${index}`, { type: 'string', minLength: 1, maxLength: 10 }]))
  })
  return repeat(port, count, 'PUT', (index) => `/schemas/abusehuge${index}`, schema)
}

const attacks = { idleConnections, uploads, slowloris, pipelining, validationBombs, hugeSchemas }

process.on('message', (message) => {
  if (message === 'stop') {
    stopping = true
    return
  }
  const attack = attacks[message.attack]
  attack(message).then(async (stats) => {
    while (!stopping) await sleep(50)
    for (const socket of sockets) socket.destroy()
    process.send({ stats })
  }, (error) => process.send({ error: String(error?.message ?? error) }))
})
process.on('disconnect', () => process.exit(0))
