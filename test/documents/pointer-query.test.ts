import { describe, expect, it } from 'vitest'
import { buildTestApp, get, operate, patch, put, remove, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()

/** `?pointer=` for a JSON Pointer, encoded as a generated client encodes a query parameter. */
const at = (pointer: string) => `?pointer=${encodeURIComponent(pointer)}`

async function documentWithTrickyNames () {
  const key = uniqueKey()
  await put(app, `/docs/${key}`, { a: { b: 1 }, 'x/y': 2, '~t': 3, '': { '': 4 }, list: [10, 20] })
  return key
}

describe('?pointer= on /docs/{key} addresses what the path form addresses', () => {
  it.each([
    ['/a/b', '/a/b', '1'],
    ['/x~1y (a "/" inside a name)', '/x~1y', '2'],
    ['/~0t (a "~" inside a name)', '/~0t', '3'],
    ['/ (the member "")', '/', '{"":4}'],
    ['// (member "" of member "")', '//', '4'],
    ['/list/1', '/list/1', '20']
  ])('%s', async (_name, pointer, text) => {
    const key = await documentWithTrickyNames()
    expect((await get(app, `/docs/${key}${at(pointer)}`)).body).toBe(text)
    expect((await get(app, `/docs/${key}${pointer}`)).body).toBe(text)
  })

  it('is the whole document when empty', async () => {
    const key = await documentWithTrickyNames()
    expect((await get(app, `/docs/${key}?pointer=`)).body).toBe((await get(app, `/docs/${key}`)).body)
  })

  it('writes, patches, operates and deletes at the location', async () => {
    const key = await documentWithTrickyNames()
    const created = await put(app, `/docs/${key}${at('/new~1name')}`, true)
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe(`/docs/${key}${at('/new~1name')}`)
    expect((await get(app, created.headers.location as string)).body).toBe('true')
    expect((await patch(app, `/docs/${key}${at('/a')}`, { c: 2 })).body).toBe('{"b":1,"c":2}')
    expect((await operate(app, `/docs/${key}${at('/list')}`, { op: 'push', values: [30] })).json()).toEqual({ result: 3 })
    expect((await remove(app, `/docs/${key}${at('/x~1y')}`)).statusCode).toBe(204)
    expect((await get(app, `/docs/${key}/x~1y`)).statusCode).toBe(404)
    expect((await get(app, `/meta/${key}${at('/list')}`)).json()).toMatchObject({ type: 'array', length: 3 })
  })

  it.each([
    ['a pointer not starting with "/"', '?pointer=a'],
    ['a "~" not followed by 0 or 1', `?pointer=${encodeURIComponent('/a~2')}`],
    ['two pointers', '?pointer=/a&pointer=/b']
  ])('is 400 for %s', async (_name, query) => {
    const key = await documentWithTrickyNames()
    const response = await get(app, `/docs/${key}${query}`)
    expect(response.statusCode).toBe(400)
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  })

  it('is 400 beside a pointer in the path, for every method, and writes nothing', async () => {
    const key = await documentWithTrickyNames()
    const before = (await get(app, `/docs/${key}`)).body
    for (const response of [
      await get(app, `/docs/${key}/a${at('/b')}`),
      await put(app, `/docs/${key}/a${at('/b')}`, 5),
      await patch(app, `/docs/${key}/a${at('/b')}`, { z: 1 }),
      await operate(app, `/docs/${key}/list${at('')}`, { op: 'pop' }),
      await remove(app, `/docs/${key}/a${at('/b')}`),
      await get(app, `/docs/${key}/${at('')}`)
    ]) {
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ code: 'DOCS_ERR_BAD_REQUEST' })
    }
    expect((await get(app, `/docs/${key}`)).body).toBe(before)
  })
})
