import { describe, expect, it } from 'vitest'
import { buildTestApp, put } from '../../helpers/app.js'
import { indexReady, query } from './helpers.js'
import { wordsOf } from './reference.js'

/*
 * `$text` answers exactly the documents whose field holds every word, as RediSearch splits and folds them:
 * words made of punctuation, letters beyond ASCII, digits and emoji included; what it cannot answer
 * exactly is refused.
 */

const app = await buildTestApp()

const TEXTS = ['@at home', 'at', 'Über Ü', 'über ü', 'emoji 😀 here', 'a.b', 'ab', 'x-y', 'x_y', 'Straße', 'STRASSE', '日本語', '10 1.5',
  'e\u00a0f', 'e f', 'q?r', 'x\\-y', 'a\\b', 'NAÏVE', 'naïve', 'Σσ ς']

async function keysOf (text: string): Promise<string[]> {
  const response = await query(app, 'texts2', { filter: { '/t': { $text: text } }, limit: 100 }, { prefer: 'count=exact' })
  expect(response.statusCode, `${text}: ${response.body}`).toBe(200)
  const page = response.json()
  expect(page.count).toBe(page.items.length)
  return page.items.map((item: { key: string }) => item.key).sort()
}

describe('$text matches every word exactly as RediSearch reads it', () => {
  it('for words of punctuation, letters beyond ASCII, digits and emoji', async () => {
    for (const [index, t] of TEXTS.entries()) expect((await put(app, `/docs/texts2:${String(index).padStart(2, '0')}`, { t })).statusCode).toBeLessThan(300)
    await indexReady(app, 'texts2', [{ pointer: '/t', type: 'text' }])
    const expected = (text: string) => TEXTS.flatMap((t, index) => wordsOf(text).every((word) => wordsOf(t).includes(word)) ? [`texts2:${String(index).padStart(2, '0')}`] : []).sort()
    for (const text of ['@at', 'at', 'Ü', 'ü', 'Über', 'über', '😀', 'a.b', 'a b', 'ab', 'x-y', 'x_y', 'straße', 'STRASSE', '日本語', '10', '1.5',
      'e\u00a0f', 'e', 'q?r', 'q', 'NAÏVE', 'naïve', 'Σσ', 'σ', 'ς']) {
      expect(await keysOf(text), text).toEqual(expected(text))
    }
    // The cases the differential test found, spelled out.
    expect(await keysOf('@at')).toEqual(['texts2:00', 'texts2:01'])
    expect(await keysOf('Ü')).toEqual(['texts2:02'])
    expect(await keysOf('ü')).toEqual(['texts2:03'])
    expect(await keysOf('😀')).toEqual(['texts2:04'])
    expect(await keysOf('a.b')).toEqual(['texts2:05'])
    // A backslash in a document escapes the character after it: "x\-y" holds the one word "x-y", "a\b" the word "ab".
    expect(await keysOf('ab')).toEqual(['texts2:06', 'texts2:17'])
    expect(await keysOf('x')).toEqual(['texts2:07'])
  }, 60_000)

  it('refuses, as 400 changing nothing, words it cannot answer exactly', async () => {
    for (const text of ['-', '@', '...', ' \t ', 'a\\b', 'x\\-y', 'new\nline', 'nul\u0000', 'bell\u0007']) {
      const response = await query(app, 'texts2', { filter: { '/t': { $text: text } } })
      expect(response.statusCode, text).toBe(400)
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(response.json().detail, text).toMatch(/^filter\/~1t\/\$text: takes /)
    }
  })
})
