import { describe, expect, it } from 'vitest'
import { buildTestApp, send } from '../helpers/app.js'

const app = await buildTestApp()

/** What every slot's mirror (one on a single Redis, 16,384 on a cluster) holds for a collection. */
async function mirrored (collection: string): Promise<Set<string | null>> {
  const { mirrors } = app.schemas.storage
  const held = await Promise.all(mirrors.map((key) => app.redis.send<string | null>(key, ['HGET', key, collection])))
  return new Set(held)
}

describe('schema mirrors', () => {
  it('are all set before PUT and DELETE /schemas answer, whichever node serves each slot', async () => {
    expect(app.schemas.storage.mirrors).toHaveLength(app.redis.isCluster ? 16_384 : 1)
    const put = await send(app, 'PUT', '/schemas/mirrored', JSON.stringify({ type: 'object' }))
    expect(put.statusCode).toBe(201)
    const afterPut = await mirrored('mirrored')
    expect(afterPut.size).toBe(1)
    const [state] = afterPut
    expect(state).toMatch(/^\d+:\d+$/)

    expect((await app.inject({ method: 'DELETE', url: '/schemas/mirrored' })).statusCode).toBe(204)
    const afterDelete = await mirrored('mirrored')
    expect(afterDelete.size).toBe(1)
    const [removed] = afterDelete
    expect(removed).toMatch(/^\d+:$/)
    expect(Number(removed!.split(':')[0])).toBeGreaterThan(Number(state!.split(':')[0]))
  })
})
