import { describe, expect, it } from 'vitest'
import { buildTestApp, get, jsonPatch, operate, patch, put, remove, uniqueKey } from '../helpers/app.js'
import { segment, token, trickyNames } from '../helpers/member-names.js'

const app = await buildTestApp()

/**
 * The documented limit (docs/api.md, Addressing): RedisJSON's writes miss a member whose path step needs
 * escapes, so deeper in a write's pointer, in a merge patch or in an operation such a name is 422.
 */
const needsEscapes = (name: string) => name.includes('\\') || (name.includes('"') && name.includes("'"))

async function documentAt (key: string): Promise<unknown> {
  return (await get(app, `/docs/${key}`)).json()
}

describe('writes reach any member name exactly as the last token of a pointer', () => {
  it.each(trickyNames)('%j: PUT replaces and adds it, DELETE removes it, and nothing else changes', async (name) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { [name]: 1, n: { [name]: [1] }, other: 0 })
    const replaced = await put(app, `/docs/${key}/${segment(name)}`, 'replaced')
    expect(replaced.statusCode).toBe(200)
    expect(replaced.json()).toBe('replaced')
    const added = await put(app, `/docs/${key}/n/${segment(name + '+')}`, 'added')
    expect(added.statusCode).toBe(201)
    expect(added.json()).toBe('added')
    expect((await remove(app, `/docs/${key}/n/${segment(name)}`)).statusCode).toBe(204)
    expect(await documentAt(key)).toEqual({ [name]: 'replaced', n: { [name + '+']: 'added' }, other: 0 })
  })

  it.each(trickyNames)('%j: JSON Patch replaces, tests, copies, adds, moves and removes it', async (name) => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { [name]: 1, n: {}, other: 0 })
    const response = await jsonPatch(app, `/docs/${key}`, [
      { op: 'replace', path: `/${token(name)}`, value: 2 },
      { op: 'test', path: `/${token(name)}`, value: 2 },
      { op: 'copy', from: `/${token(name)}`, path: `/n/${token(name)}` },
      { op: 'add', path: `/n/${token(name + '+')}`, value: 3 },
      { op: 'move', from: `/n/${token(name + '+')}`, path: '/moved' },
      { op: 'remove', path: `/${token(name)}` }
    ])
    expect(response.statusCode).toBe(200)
    expect(await documentAt(key)).toEqual({ n: { [name]: 2 }, other: 0, moved: 3 })
  })
})

describe('writes through a member deeper in a pointer, merge patches and operations', () => {
  it.each(trickyNames)('%j: written exactly, or 422 with nothing changed when its path step needs escapes', async (name) => {
    const key = uniqueKey()
    const original = { [name]: { v: 1 }, other: 0 }
    await put(app, `/docs/${key}`, original)
    const responses = [
      await put(app, `/docs/${key}/${segment(name)}/v`, 5),
      await patch(app, `/docs/${key}/${segment(name)}`, { w: 1 }),
      await operate(app, `/docs/${key}/${segment(name)}/v`, { op: 'incr', by: 1 }),
      await operate(app, `/docs/${key}`, { op: 'incr', path: `/${token(name)}/v`, by: 1 }),
      await remove(app, `/docs/${key}/${segment(name)}/w`)
    ]
    if (needsEscapes(name)) {
      for (const response of responses) {
        expect(response.statusCode).toBe(422)
        expect(response.json()).toMatchObject({ code: 'DOCS_ERR_UNADDRESSABLE' })
      }
      expect(await documentAt(key)).toEqual(original)
    } else {
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 204])
      expect(await documentAt(key)).toEqual({ [name]: { v: 7 }, other: 0 })
    }
  })

  it('reads through such a member at any depth; /meta describes it only when its step needs no escapes', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { 'back\\slash': { 'a\'"b': [1, 2] }, 'say "hi"': [1, 2, 3] })
    const path = `${segment('back\\slash')}/${segment('a\'"b')}`
    expect((await get(app, `/docs/${key}/${path}`)).json()).toEqual([1, 2])
    const refused = await get(app, `/meta/${key}/${path}`)
    expect(refused.statusCode).toBe(422)
    expect(refused.json()).toMatchObject({ code: 'DOCS_ERR_UNADDRESSABLE' })
    const described = await get(app, `/meta/${key}/${segment('say "hi"')}`)
    expect(described.json()).toMatchObject({ type: 'array', length: 3, memory: expect.any(Number) })
  })
})
