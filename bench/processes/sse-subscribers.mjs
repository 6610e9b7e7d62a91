// Subscribers of a live stream in a process of their own, so that the process pacing the writes does not
// also hold a thousand streams: time spent on one side's event loop does not show as the other's latency.
// Plain JavaScript so it runs on bare node. IPC: { open: { url, streams } } answers { opened } once every
// stream sent its first event; { report: true } answers { arrivals }: per ETag of a later event, the
// instants (ms since the epoch, performance.timeOrigin + performance.now(), comparable across processes)
// at which each subscriber had read it.
import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import process from 'node:process'
import { setTimeout } from 'node:timers'

const arrivals = new Map()
const responses = []
let opened = 0

function now () {
  return performance.timeOrigin + performance.now()
}

function open (url, agent) {
  return new Promise((resolve, reject) => {
    const sent = request(url, { agent, headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`))
      responses.push(response)
      let buffer = ''
      let first = true
      response.setEncoding('utf8')
      response.on('data', (chunk) => {
        buffer += chunk
        let at
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, at)
          buffer = buffer.slice(at + 2)
          const name = /^event: (.*)$/m.exec(block)?.[1]
          if (name === undefined) continue
          if (first) {
            first = false
            opened++
            continue
          }
          // A write sends a patch, or a put where the patch would be longer than the value.
          if (name !== 'patch' && name !== 'put') continue
          const etag = /"etag":"\\"([^\\"]*)\\""/.exec(block)?.[1]
          if (etag === undefined) continue
          const times = arrivals.get(etag) ?? []
          times.push(now())
          arrivals.set(etag, times)
        }
      })
      resolve()
    })
    sent.on('error', reject)
    sent.end()
  })
}

process.on('message', async (message) => {
  if (message.open) {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
    for (let index = 0; index < message.open.streams; index++) await open(message.open.url, agent)
    const deadline = Date.now() + 20_000
    while (opened < message.open.streams && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    process.send({ opened })
  } else if (message.report) {
    process.send({ arrivals: Object.fromEntries(arrivals) })
  } else if (message.stop) {
    for (const response of responses) response.destroy()
    process.disconnect()
  }
})
