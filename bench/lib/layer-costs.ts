import Fastify from 'fastify'
import { join } from 'node:path'
import { requestIdOf } from '../../src/http/request-id.js'
import { SeriesHistogram } from '../../src/metrics/histogram.js'
import { requestObserver } from '../../src/metrics/http-metrics.js'
import { observeRedisCalls } from '../../src/metrics/redis-calls.js'
import { startLocalRedis } from '../../src/redis/local-server.js'
import { createRedisClient } from '../../src/redis/plugin.js'
import { singleRedis } from '../../src/redis/single.js'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** CPU time of this process so far, in µs. */
function cpu (): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** µs of CPU per call of work, over n calls. */
function perCall (n: number, work: () => void): number {
  const started = cpu()
  for (let i = 0; i < n; i++) work()
  return (cpu() - started) / n
}

/** The request hook and the request id, on a real fastify request and reply: µs per request, median of rounds. */
async function timeRequestLayers (rounds: number): Promise<Record<string, number>> {
  const app = Fastify({ genReqId: requestIdOf })
  const durations = new SeriesHistogram('d', 'd', ['route', 'method', 'status_code'], [0.001, 0.01, 0.1, 1])
  const observe = requestObserver(durations, new Map())
  const done = () => {}
  app.get('/docs/:key', async (request, reply) => ({
    'metrics: the request hook': perCall(100_000, () => observe(request, reply, done)),
    'request id: taking or making it': perCall(100_000, () => requestIdOf(request.raw)),
    'request id: its header': perCall(100_000, () => reply.header('x-request-id', request.id))
  }))
  await app.ready()
  const samples: Record<string, number[]> = {}
  for (let round = 0; round < rounds; round++) {
    for (const [name, value] of Object.entries((await app.inject('/docs/a')).json() as Record<string, number>)) {
      (samples[name] ??= []).push(value)
    }
  }
  await app.close()
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]))
}

/** A Redis call observed through node-redis' tracing channel, beside the same call unobserved: µs per call. */
async function timeRedisCalls (work: string, rounds: number): Promise<{ off: number, on: number }> {
  const redis = await startLocalRedis({ dir: join(work, 'layer-costs'), persistent: false })
  const client = createRedisClient({ connection: { socketPath: redis.socketPath }, commandTimeoutMs: 2000 })
  try {
    await client.connect()
    await client.set('k', 'v')
    const calls = async (n: number) => {
      const started = cpu()
      for (let i = 0; i < n / 100; i++) await Promise.all(Array.from({ length: 100 }, () => client.sendCommand(['GET', 'k'])))
      return (cpu() - started) / n
    }
    await calls(50_000)
    const durations = new SeriesHistogram('r', 'r', ['command'], [0.0001, 0.001, 0.01])
    const off: number[] = []
    const on: number[] = []
    for (let round = 0; round < rounds; round++) {
      off.push(await calls(50_000))
      const observed = singleRedis(client)
      const stop = observeRedisCalls(observed, observed, durations)
      on.push(await calls(50_000))
      stop()
    }
    return { off: median(off), on: median(on) }
  } finally {
    client.destroy()
    await redis.stop()
  }
}

/** The work each layer adds, timed alone, as a markdown table. */
export async function timeLayers (work: string, rounds = 7): Promise<string> {
  const request = await timeRequestLayers(rounds)
  const redis = await timeRedisCalls(work, rounds)
  return [
    `Each layer's work alone, in this process (median of ${rounds} rounds, µs of CPU):`,
    '',
    '| work | µs |',
    '| --- | --- |',
    ...Object.entries(request).map(([name, value]) => `| ${name} | ${value.toFixed(2)} |`),
    `| metrics: a Redis call observed (${redis.on.toFixed(2)} µs) beside unobserved (${redis.off.toFixed(2)} µs) | ${(redis.on - redis.off).toFixed(2)} |`,
    ''
  ].join('\n')
}
