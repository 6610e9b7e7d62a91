import { createClient } from 'redis'
import { describe, expect, it } from 'vitest'
import { currentLibrary } from '../../src/redis/lua-script.js'
import { buildTestApp, get, patch, put, uniqueKey } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'
import { startOwnRedis } from '../helpers/local-redis.js'

async function adminOf (socketPath: string) {
  const client = await createClient({ socket: { path: socketPath, reconnectStrategy: false } }).connect()
  whenDone(() => client.destroy())
  return client
}

describe('the function library', () => {
  it('holds every script as a function, the reads flagged no-writes, and outlives a restart of a persistent Redis', async () => {
    const redis = await startOwnRedis({ persistent: true })
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath } })
    expect((await put(app, `/docs/${uniqueKey()}`, { a: 1 })).statusCode).toBe(201)
    const library = currentLibrary()
    const admin = await adminOf(redis.socketPath)
    const listed = JSON.stringify(await admin.sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', library.name]))
    for (const script of library.scripts) expect(listed).toContain(`"${library.name}_${script.name.replaceAll('-', '_')}"`)
    expect(listed).toMatch(new RegExp(`"${library.name}_read",[^\\]]*"no-writes"`))
    admin.destroy()

    await redis.stop()
    await redis.start()
    const after = await adminOf(redis.socketPath)
    expect(JSON.stringify(await after.sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', library.name]))).toContain(`"${library.name}_put"`)
  })

  it('gives every call state of its own: a validated write\'s preview never keeps the next write from bumping the version', async () => {
    const app = await buildTestApp()
    const collection = uniqueKey('functions')
    expect((await put(app, `/schemas/${collection}`, { type: 'object', properties: { n: { type: 'integer' } } })).statusCode).toBe(201)
    const url = `/docs/${collection}:1`
    const etags = new Set<string>()
    expect((await put(app, url, { n: 0 })).statusCode).toBe(201)
    for (let n = 1; n <= 5; n++) {
      // A merge patch of a validated document runs a preview, then the write, in two calls.
      const written = await patch(app, url, { n })
      expect(written.statusCode, written.body).toBe(200)
      etags.add(String(written.headers.etag))
      const read = await get(app, url)
      expect(read.json()).toEqual({ n })
      expect(read.headers.etag).toBe(written.headers.etag)
    }
    expect(etags.size).toBe(5)
  })
})

describe('a Redis without the library', () => {
  it('gets it loaded once however many requests find it missing at once', async () => {
    const redis = await startOwnRedis()
    const app = await buildTestApp({ redis: { socketPath: redis.socketPath } })
    const admin = await adminOf(redis.socketPath)
    const key = uniqueKey()
    expect((await put(app, `/docs/${key}`, { n: 0 })).statusCode).toBe(201)
    await admin.sendCommand(['FUNCTION', 'FLUSH'])
    await admin.sendCommand(['CONFIG', 'RESETSTAT'])
    const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => put(app, `/docs/${key}/n`, n)))
    for (const answer of answers) expect(answer.statusCode).toBe(200)
    const stats = String(await admin.sendCommand(['INFO', 'commandstats']))
    expect(Number(/cmdstat_function\|load:calls=(\d+)/.exec(stats)?.[1])).toBe(1)
  })
})
