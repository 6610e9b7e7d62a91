import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { connect, JsondocsError, type Database } from '../../client/src/index.js'
import { eventually, listeningApp } from './service.js'

let db: Database
beforeAll(async () => {
  const { baseUrl } = await listeningApp()
  db = connect({ baseUrl, token: async () => undefined })
})

const key = (label: string) => `${label}:${randomUUID()}`

describe('reading and writing documents', () => {
  it('puts, gets, merges, patches and removes, with the versions the service answers', async () => {
    const doc = db.doc<Record<string, unknown>>(key('users'))
    expect(await doc.get()).toEqual({ value: undefined, etag: undefined })
    const created = await doc.put({ name: 'Ann', tags: ['a'] }, { create: true })
    expect(created.etag).toMatch(/^"\d+"$/)
    expect(await doc.get()).toEqual({ value: { name: 'Ann', tags: ['a'] }, etag: created.etag })

    const merged = await doc.merge({ age: 30, tags: null }, { ifMatch: created.etag })
    expect(merged.value).toEqual({ name: 'Ann', age: 30 })
    const patched = await doc.patch([{ op: 'add', path: '/tags', value: ['b'] }, { op: 'replace', path: '/age', value: 31 }], { ifMatch: merged.etag })
    expect(patched.value).toEqual({ name: 'Ann', age: 31, tags: ['b'] })
    expect(patched.etag).not.toBe(merged.etag)

    await doc.remove({ ifMatch: patched.etag })
    expect((await doc.get()).value).toBeUndefined()
  })

  it('reaches a location by JSON Pointer, whatever its member names hold', async () => {
    const name = key('odd')
    await db.doc(name).put({ 'a/b': { 'c~d': [1, 2] }, 'sp ace': { '%': true }, '.': 'dot' })
    expect((await db.doc(name, '/a~1b/c~0d/1').get()).value).toBe(2)
    expect((await db.doc(name, '/sp ace/%').get()).value).toBe(true)
    expect((await db.doc(name, '/.').get()).value).toBe('dot')
    await db.doc(name, '/a~1b/c~0d/0').put(5)
    expect((await db.doc(name).get()).value).toEqual({ 'a/b': { 'c~d': [5, 2] }, 'sp ace': { '%': true }, '.': 'dot' })
    expect((await db.doc(name, '/missing').get()).value).toBeUndefined()
  })

  it('throws every refusal as a JsondocsError carrying the problem', async () => {
    const doc = db.doc(key('users'))
    await doc.put({ n: 1 })
    const stale = doc.put({ n: 2 }, { ifMatch: '"1"' })
    await expect(stale).rejects.toBeInstanceOf(JsondocsError)
    await expect(stale).rejects.toMatchObject({ status: 412, code: 'DOCS_ERR_PRECONDITION_FAILED', title: 'Precondition failed' })
    await expect(doc.put({ n: 3 }, { create: true })).rejects.toMatchObject({ status: 412 })
    const failed = await doc.patch([{ op: 'remove', path: '/nothing' }]).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(JsondocsError)
    expect((failed as JsondocsError).problem).toMatchObject({ code: 'DOCS_ERR_PATCH_FAILED', operation: 0, path: '/nothing', detail: expect.any(String) })
    await expect(db.doc(key('gone')).remove()).rejects.toMatchObject({ status: 404, code: 'DOCS_ERR_NOT_FOUND' })
    expect((await doc.get()).value).toEqual({ n: 1 })
  })
})

describe('update', () => {
  it('loses no update when many write one document at once', async () => {
    const doc = db.doc<{ count: number, by: string[] }>(key('counters'))
    const writers = 6
    const each = 5
    await Promise.all(Array.from({ length: writers }, async (_, writer) => {
      for (let step = 0; step < each; step++) {
        await doc.update((value) => ({ count: (value?.count ?? 0) + 1, by: [...(value?.by ?? []), `${writer}.${step}`] }), { tries: 50 })
      }
    }))
    const { value } = await doc.get()
    expect(value?.count).toBe(writers * each)
    expect(new Set(value?.by).size).toBe(writers * each)
  })

  it('updates a location, absent at first, under the document\'s version', async () => {
    const name = key('profiles')
    await db.doc(name).put({ name: 'Ann' })
    const visits = db.doc<number>(name, '/visits')
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let step = 0; step < 3; step++) await visits.update((value) => (value ?? 0) + 1, { tries: 50 })
    }))
    expect((await db.doc(name).get()).value).toEqual({ name: 'Ann', visits: 12 })
    await expect(db.doc(key('none'), '/x').update(() => 1)).rejects.toMatchObject({ status: 404 })
  })

  it('creates an absent document, deletes when the change gives undefined, and gives up after its tries', async () => {
    const doc = db.doc<number>(key('counters'))
    expect(await doc.update((value) => (value ?? 0) + 1)).toMatchObject({ value: 1 })
    expect(await doc.update(() => undefined)).toMatchObject({ value: undefined })
    expect((await doc.get()).value).toBeUndefined()

    await doc.put(0)
    let calls = 0
    // Every attempt loses to a write made between its read and its write.
    const losing = doc.update(async (value) => { calls++; await doc.put((value ?? 0) + 100); return (value ?? 0) + 1 }, { tries: 3 })
    await expect(losing).rejects.toMatchObject({ status: 412, code: 'DOCS_ERR_PRECONDITION_FAILED' })
    expect(calls).toBe(3)
  })
})

describe('answers the service did not give', () => {
  it('throws a page in place of a problem as an error of its status, and stops a watch that gets no event stream', async () => {
    const proxy = connect({ fetch: async () => new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html' } }) })
    await expect(proxy.doc('k').get()).rejects.toMatchObject({ status: 502, code: 'HTTP_502', title: 'Bad Gateway', detail: '<h1>Bad gateway</h1>' })

    const errors: unknown[] = []
    const plain = connect({ fetch: async () => new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }) })
    plain.doc('k').watch(() => {}, { onError: (error) => errors.push(error) })
    await eventually(() => errors.length === 1, 'the refusal')
    expect(errors[0]).toMatchObject({ status: 200, code: 'NOT_A_STREAM' })
  })
})
