import { describe, expect, it } from 'vitest'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { connect, JsondocsError, type Change, type PrefixChange } from '../../client/src/index.js'
import { connectRedis, jsonPatch, patch, put, remove } from '../helpers/app.js'
import { appendLegacyEntry, nextVersion } from '../helpers/legacy-entry.js'
import { expectWriteOrder } from '../helpers/write-order.js'
import { ADMIN_TOKEN, bearer, tokenFor } from '../access/guarded-app.js'
import { eventually, listeningApp } from './service.js'

const guarded = { access: { adminToken: ADMIN_TOKEN, anonymousScopes: [], open: false } }

/** Records the Last-Event-ID of every stream request: where each reconnection resumed from. */
function resumes () {
  const seen: string[] = []
  const plugin = fp(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (request) => { if (request.headers['last-event-id']) seen.push(String(request.headers['last-event-id'])) })
  })
  return { seen, plugin }
}

const resumed = resumes()
const { app, baseUrl, sockets } = await listeningApp(guarded, { crossCutting: [resumed.plugin] })
const redis = await connectRedis()

describe('doc.watch', () => {
  it('keeps the value current through patches, puts and a delete, across connections the server cuts, and ends exact', async () => {
    const db = connect({ baseUrl, token: () => ADMIN_TOKEN })
    const doc = db.doc<{ count: number, items: number[], note: string }>('live:1')
    await put(app, '/docs/live:1', { count: 0, items: [], note: 'long enough that a patch of one member is shorter than the whole value' }, bearer(ADMIN_TOKEN))

    const calls: Array<{ value: unknown, change: Change }> = []
    const errors: unknown[] = []
    const stop = doc.watch((value, change) => { calls.push({ value: structuredClone(value), change }) }, { onError: (error) => errors.push(error) })
    await eventually(() => calls.length === 1, 'the first value')
    expect(calls[0]!.change.event).toBe('put')

    let last = ''
    for (let round = 0; round < 3; round++) {
      for (let step = 0; step < 4; step++) {
        const answer = await app.inject({ method: 'POST', url: '/docs/live:1/items', headers: bearer(ADMIN_TOKEN), payload: { op: 'push', values: [round * 10 + step] } })
        last = answer.headers.etag as string
      }
      last = (await patch(app, '/docs/live:1', { count: round + 1 }, bearer(ADMIN_TOKEN))).headers.etag as string
      // The server cuts every connection (the stream's too); writes go on meanwhile (not over sockets, which it cuts).
      await eventually(() => calls.at(-1)?.change.etag === last, `round ${round}'s writes`)
      for (const socket of sockets) socket.destroy()
      last = (await jsonPatch(app, '/docs/live:1', [{ op: 'add', path: '/items/0', value: -round }], bearer(ADMIN_TOKEN))).headers.etag as string
    }
    await eventually(() => calls.at(-1)?.change.etag === last, 'caught up after the cuts')
    const read = await connect({ baseUrl, token: ADMIN_TOKEN }).doc('live:1').get()
    expect(calls.at(-1)!.value).toEqual(read.value)
    expect(calls).toHaveLength(1 + 3 * 6)
    const ids = calls.map((call) => call.change.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(resumed.seen.length).toBeGreaterThanOrEqual(3)

    await remove(app, '/docs/live:1', bearer(ADMIN_TOKEN))
    await eventually(() => calls.at(-1)?.change.event === 'delete', 'the delete')
    expect(calls.at(-1)!.value).toBeUndefined()
    stop()
    const count = calls.length
    await put(app, '/docs/live:1', { count: 9, items: [], note: '' }, bearer(ADMIN_TOKEN))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(calls.length).toBe(count)
    expect(errors).toEqual([])
  })

  it('stops with the problem when its credentials are refused', async () => {
    const errors: unknown[] = []
    const calls: unknown[] = []
    connect({ baseUrl, token: 'jdt.nobody.nothing' }).doc('live:2').watch((value) => calls.push(value), { onError: (error) => errors.push(error) })
    await eventually(() => errors.length === 1, 'the refusal')
    expect(errors[0]).toBeInstanceOf(JsondocsError)
    expect(errors[0]).toMatchObject({ status: 401, code: 'DOCS_ERR_UNAUTHORIZED' })
    expect(calls).toEqual([])
  })
})

describe('prefix(...).watch', () => {
  it('under a scoped token sees only its keys, each document whole, across a cut connection', async () => {
    const write = (key: string, value: unknown) => put(app, `/docs/${encodeURIComponent(key)}`, value, bearer(ADMIN_TOKEN))
    const { id, token } = await tokenFor(app, [{ prefix: 'users:42:', rights: ['read'] }])
    const db = connect({ baseUrl, token })
    await write('users:42:old', { name: 'Old', visits: 1, note: 'n'.repeat(200) })

    const seen: Array<{ key: string | null, value: unknown, change: PrefixChange }> = []
    const errors: unknown[] = []
    const stop = db.prefix('users:').watch((key, value, change) => { seen.push({ key, value: structuredClone(value), change }) }, { onError: (error) => errors.push(error) })
    // A prefix stream has no first value: write until the watch shows it is following.
    let ready = ''
    await eventually(async () => {
      ready = (await write('users:42:ready', 1)).headers.etag as string
      return seen.length > 0
    }, 'the stream open')
    await eventually(() => seen.at(-1)?.change.etag === ready, 'the last of those writes')
    seen.length = 0
    // Documents long enough that a patch of one member is shorter than the whole (else the stream sends a put).
    const note = 'n'.repeat(200)

    await write('users:43:a', { name: 'not mine' })
    await write('users:42:a', { name: 'Ann', tags: ['x'], note })
    await write('users:420:a', { name: 'not mine either' })
    await jsonPatch(app, '/docs/users:42:a', [{ op: 'add', path: '/tags/-', value: 'y' }], bearer(ADMIN_TOKEN))
    // A patch to a document the watch never saw whole: it reads it.
    await jsonPatch(app, '/docs/users:42:old', [{ op: 'replace', path: '/visits', value: 2 }], bearer(ADMIN_TOKEN))
    for (const socket of sockets) socket.destroy()
    await write('users:42:big', { text: 'x'.repeat(20_000) })
    await remove(app, '/docs/users:43:a', bearer(ADMIN_TOKEN))
    await remove(app, '/docs/users:42:a', bearer(ADMIN_TOKEN))
    // An entry as an earlier release recorded a write too long for it, without its changes: `changed`, and the watch reads the document.
    const legacy = await write('users:42:legacy', { v: 1 })
    await appendLegacyEntry(app, redis, 'users:42:legacy', nextVersion(legacy.headers.etag as string))
    const last = (await write('users:42:ready', 0)).headers.etag

    await eventually(() => seen.at(-1)?.change.etag === last, 'every change')
    const expected: Array<[string, string, unknown]> = [
      ['users:42:a', 'put', { name: 'Ann', tags: ['x'], note }], ['users:42:a', 'patch', { name: 'Ann', tags: ['x', 'y'], note }],
      ['users:42:old', 'patch', { name: 'Old', visits: 2, note }], ['users:42:big', 'put', { text: 'x'.repeat(20_000) }],
      ['users:42:a', 'delete', undefined], ['users:42:legacy', 'put', { v: 1 }], ['users:42:legacy', 'changed', { v: 1 }],
      ['users:42:ready', 'put', 0]
    ]
    const got = seen.map(({ key, value, change }) => [key!, change.event, value])
    expectWriteOrder(got, expected, { keyOf: ([key]) => String(key), ids: seen.map(({ change }) => change.id), onCluster: app.redis.isCluster })
    expect(new Set(seen.map(({ change }) => change.id)).size).toBe(seen.length)

    // Revoked, the token's stream ends; reconnecting is refused, and the watch stops with the problem.
    await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: bearer(ADMIN_TOKEN) })
    await eventually(() => errors.length === 1, 'the refusal after the revocation', 15_000)
    expect(errors[0]).toMatchObject({ status: 401 })
    stop()
  })
})
