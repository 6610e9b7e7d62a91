import { fileURLToPath } from 'node:url'
import { describe, expect, it, inject } from 'vitest'
import { startFloor } from '../../bench/lib/processes.js'
import { whenDone } from '../helpers/cleanup.js'
import { buildTestApp, connectRedis, put, send } from '../helpers/app.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const DOCUMENT = '{"sclr":1,"sub_doc":{"sclr":2},"n":12345678901234567890,"f":1.0}'

describe('the floor server, on the suite\'s Redis', async () => {
  // The floor is measured on one Redis, as the bench runs it: on a cluster there is nothing to compare with.
  if ('clusterNodes' in inject('redis')) {
    it.skip('runs on a single Redis only')
    return
  }
  const app = await buildTestApp()
  const redis = await connectRedis()
  const floor = await startFloor(root, 'warn', inject('redis'), app.keyPrefix)
  whenDone(() => floor.stop())
  const at = (key: string, path: string) => `${floor.url}/floor/${key}?path=${encodeURIComponent(path)}`
  const json = { 'content-type': 'application/json' }

  it('reads what the service reads, with the version it keeps beside the document', async () => {
    expect((await send(app, 'PUT', '/docs/floor-read', DOCUMENT)).statusCode).toBe(201)
    for (const [path, pointer] of [['.', ''], ['sclr', '/sclr'], ['sub_doc', '/sub_doc']] as const) {
      const response = await fetch(at('floor-read', path))
      expect(response.status).toBe(200)
      expect(response.headers.get('etag')).toBe('"0"')
      expect(await response.text()).toBe((await app.inject({ url: `/docs/floor-read${pointer}` })).body)
    }
  })

  it('writes a value that exists and moves its version in the same step', async () => {
    expect((await send(app, 'PUT', '/docs/floor-write', DOCUMENT)).statusCode).toBe(201)
    const first = await fetch(at('floor-write', 'sclr'), { method: 'PUT', headers: json, body: '7' })
    expect(first.status).toBe(204)
    expect(first.headers.get('etag')).toBe('"1"')
    const second = await fetch(at('floor-write', 'sclr'), { method: 'PUT', headers: json, body: '8' })
    expect(second.headers.get('etag')).toBe('"2"')
    expect((await app.inject({ url: '/docs/floor-write/sclr' })).body).toBe('8')
    expect(await redis.get(`${app.keyPrefix}floor-write:floor-version`)).toBe('2')
  })

  it('increments as the service answers an increment', async () => {
    expect((await put(app, '/docs/floor-number', 41)).statusCode).toBe(201)
    const response = await fetch(at('floor-number', '.'), { method: 'POST', headers: json, body: '{"op":"incr","by":1}' })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('{"result":42}')
    expect(response.headers.get('etag')).toBe('"1"')
  })

  it('answers 404 for what is not there and 400 for a body that is not JSON, and writes nothing', async () => {
    expect((await fetch(at('floor-missing', '.'))).status).toBe(404)
    expect((await fetch(at('floor-missing', 'sclr'), { method: 'PUT', headers: json, body: '1' })).status).toBe(404)
    expect((await send(app, 'PUT', '/docs/floor-bad', DOCUMENT)).statusCode).toBe(201)
    expect((await fetch(at('floor-bad', 'sclr'), { method: 'PUT', headers: json, body: '{' })).status).toBe(400)
    expect((await app.inject({ url: '/docs/floor-bad/sclr' })).body).toBe('1')
    expect(await redis.get(`${app.keyPrefix}floor-missing:floor-version`)).toBeNull()
  })
})
