import { once } from 'node:events'
import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { measureRow, type RowContext } from '../../bench/lib/measure-row.js'
import { readRow, type RowSpec } from '../../bench/scenarios/scenario.js'
import { buildTestApp, connectRedis } from '../helpers/app.js'

describe('a benchmark row against the real service and Redis', async () => {
  const app = await buildTestApp()
  const redis = await connectRedis()
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const put = await app.inject({ method: 'PUT', url: '/docs/row', headers: { 'content-type': 'application/json' }, payload: '{"sclr":1}' })
  expect(put.statusCode).toBe(201)
  const context: RowContext = {
    target: { url, pid: process.pid, settings: 'test', redis },
    familyTitle: 'test',
    keyPrefix: app.keyPrefix,
    connections: 2,
    duration: 0.2,
    warmup: 0.05,
    soak: 1
  }

  it('measures both sides and fails nothing when every answer is 2xx', async () => {
    const result = await measureRow(readRow({ family: 'test', name: 'sclr', key: 'row' }, ['sclr'], 'sclr'), context)
    expect(result.failures).toEqual([])
    expect(result.service.requests).toBeGreaterThan(0)
    expect(result.service.latency.p99).toBeGreaterThan(0)
    expect(result.service.cpuUsPerRequest).toBeGreaterThan(0)
    expect(result.direct!.requests).toBeGreaterThan(0)
    expect(result.ratio).toBeGreaterThan(0)
  })

  it('measures the ceiling right after the HTTP side when the row is judged against it', async () => {
    const adjacentCeiling = { target: context.target, requests: [{ method: 'GET' as const, path: '/health' }] }
    const result = await measureRow(readRow({ family: 'test', name: 'sclr', key: 'row' }, ['sclr'], 'sclr'), { ...context, adjacentCeiling })
    expect(result.failures).toEqual([])
    expect(result.ceiling!.requests).toBeGreaterThan(0)
    expect(result.ceiling!.cpuUsPerRequest).toBeGreaterThan(0)
    expect(result.service.requests).toBeGreaterThan(0)
  })

  it('counts non-2xx answers and fails the row, as it does a direct command that finds nothing', async () => {
    const result = await measureRow(readRow({ family: 'test', name: 'missing', key: 'absent' }, ['sclr'], 'sclr'), context)
    expect(result.failures.some((failure) => /^warm-up: non-2xx answers 404×\d+$/.test(failure))).toBe(true)
    expect(result.failures.some((failure) => /^service: non-2xx answers 404×\d+$/.test(failure))).toBe(true)
    expect(result.failures).toContain('direct: the command answered null (no such document)')
  })
})

describe('a benchmark row whose window answers nothing', () => {
  const servers: Array<ReturnType<typeof createServer>> = []
  afterAll(() => { for (const server of servers) server.closeAllConnections(); servers.forEach((server) => server.close()) })

  async function serving (listener: RequestListener): Promise<RowContext> {
    const server = createServer(listener)
    servers.push(server)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return { target: { url, pid: process.pid, settings: 'test' }, familyTitle: 'test', keyPrefix: '', connections: 2, duration: 0.2, warmup: 0.05, soak: 1 }
  }
  const row: RowSpec = { id: 'test/stall', family: 'test', title: 'GET /', requests: [{ method: 'GET', path: '/' }], target: 'service', kind: 'read' }

  it('is measured again over a longer one when the target stalled for longer than the window, and says so', async () => {
    // Every request waits until 700 ms after the first one came: longer than the warm-up and the window together.
    let answersFrom: number | undefined
    const context = await serving((_request, response) => {
      answersFrom ??= Date.now() + 700
      setTimeout(() => response.end('ok'), Math.max(0, answersFrom - Date.now()))
    })
    const result = await measureRow(row, context)
    expect(result.failures).toEqual([])
    expect(result.notes).toEqual(['service: the 0.2 s window answered nothing, so it was measured again over 2 s'])
    expect(result.service.requests).toBeGreaterThan(0)
    expect(result.service.seconds).toBeGreaterThanOrEqual(1.9)
  })

  it('fails when the target answers nothing over the longer window either', async () => {
    const context = await serving(() => undefined)
    const result = await measureRow(row, context)
    expect(result.notes).toHaveLength(1)
    expect(result.failures).toContain('service: no request answered')
    expect(result.service.requests).toBe(0)
  })
})
