/**
 * Deterministic documents in the sizes and shapes of RedisJSON's published benchmark files (generated
 * here, never copied): the same paths exist and the compact JSON text weighs about the same.
 */

export type Json = null | boolean | number | string | Json[] | { [name: string]: Json }

/** A small seeded generator (mulberry32): the same seed gives the same document on every machine. */
export function seededRandom (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'da', 'pe', 'qui', 'ron', 'tal', 'ver', 'mos']

function words (random: () => number, count: number): string {
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const length = 1 + Math.floor(random() * 3)
    let word = ''
    for (let s = 0; s < length; s++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)]
    out.push(word)
  }
  return out.join(' ')
}

/** Byte length of the compact JSON text. */
export function jsonBytes (value: Json): number {
  return Buffer.byteLength(JSON.stringify(value))
}

/** The document whose size is nearest `target` bytes, for a builder whose size grows with n. */
function fitTo (target: number, build: (n: number) => Json): Json {
  let low = 0
  let high = 1
  while (jsonBytes(build(high)) < target) high *= 2
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    if (jsonBytes(build(middle)) < target) low = middle + 1
    else high = middle
  }
  const reached = build(low)
  if (low === 0) return reached
  const below = build(low - 1)
  return target - jsonBytes(below) < jsonBytes(reached) - target ? below : reached
}

/** The empty string: two bytes, `""`. */
export function emptyString (): Json {
  return ''
}

/** ~380 B nested object: `sclr`, `sub_doc.sclr`, `array_of_docs[i].sclr` (pass-100.json's shape). */
export function nestedObject (): Json {
  const random = seededRandom(100)
  const doc = (n: number): Json => ({
    sclr: 10 + n,
    str: words(random, 1),
    arr: [n, n + 1, n + 2, { sclr: 20 + n, str: words(random, 1) }]
  })
  return {
    sclr: 0,
    str: 'string',
    sub_doc: { sclr: 10, str: words(random, 2), arr: [1, 2, 3], flag: true },
    array_of_docs: [doc(0), doc(1), doc(2), doc(3)],
    nothing: null
  }
}

/** ~1.4 kB array of mixed values: `[0]` a string, `[7]` a scalar, `[8].zero` (pass-jsonsl-1.json's shape). */
export function mixedArray (): Json {
  return fitTo(1400, (n): Json => [
    'a test pattern of mixed values',
    { 'a member': ['one element'] },
    {},
    [],
    -42,
    true,
    false,
    null,
    {
      integer: 1234567890,
      real: -9876.54321,
      small: 1.5e-12,
      large: 2.5e34,
      zero: 0,
      one: 1,
      space: ' ',
      quote: '"',
      backslash: '\\',
      controls: '\b\f\n\r\t',
      slash: '/ & /',
      letters: 'abcdefghijklmnopqrstuvwxyz',
      digits: '0123456789',
      special: "`1~!@#$%^&*()_+-={':[,]}|;.</>?",
      unicode: '\u0123\u4567\u89ab',
      nested: { deeper: [[[['bottom']]]] },
      list: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      text: words(seededRandom(8), n)
    },
    0.5,
    98.6,
    99.44,
    1066,
    1e1,
    0.1e1,
    'the last element'
  ])
}

/** ~3.5 kB configuration object: `web-app.servlet[0]["servlet-name"]` (pass-json-parser-0000.json's shape). */
export function webApp (): Json {
  return fitTo(3500, (n) => {
    const random = seededRandom(3500)
    const servlet = (index: number): Json => ({
      'servlet-name': `servlet${index}`,
      'servlet-class': `org.example.servlet.${words(random, 1).replace(/ /g, '')}`,
      'init-param': Object.fromEntries(Array.from({ length: index === 4 ? n : 3 }, (_, p) => [
        `param-${p}`, p % 3 === 0 ? p * 7 : p % 3 === 1 ? words(random, 2) : p % 2 === 0
      ]))
    })
    return {
      'web-app': {
        servlet: [servlet(0), servlet(1), servlet(2), servlet(3), servlet(4)],
        'servlet-mapping': { servlet0: '/zero/*', servlet1: '/one/*', servlet2: '/two/*', servlet3: '/', servlet4: '/tools/*' },
        taglib: { 'taglib-uri': 'example.tld', 'taglib-location': '/WEB-INF/tlds/example.tld' }
      }
    }
  })
}

/** ~18 kB search result page: `ResultSet.totalResultsAvailable` (pass-jsonsl-yahoo2.json's shape). */
export function searchResults (): Json {
  return fitTo(18_000, (n) => {
    const random = seededRandom(18)
    return {
      ResultSet: {
        totalResultsAvailable: 1_234_567,
        totalResultsReturned: n,
        firstResultPosition: 1,
        Result: Array.from({ length: n }, (_, i) => ({
          Title: words(random, 4),
          Summary: words(random, 18),
          Url: `http://www.example.com/${i}/${words(random, 1).replace(/ /g, '-')}.html`,
          ClickUrl: `http://click.example.com/${i}`,
          ModificationDate: 1_100_000_000 + i * 3600,
          MimeType: 'text/html',
          Cache: { Url: `http://cache.example.com/${i}`, Size: String(1000 + i * 37) }
        }))
      }
    }
  })
}

/** ~40 kB business listing: `message.code` (pass-jsonsl-yelp.json's shape). */
export function businessListing (): Json {
  return fitTo(40_000, (n) => {
    const random = seededRandom(40)
    return {
      message: { text: 'OK', code: 0, version: '1.1.0' },
      businesses: Array.from({ length: n }, (_, i) => ({
        id: `business-${i}`,
        name: words(random, 3),
        phone: String(4_150_000_000 + i),
        address1: `${100 + i} ${words(random, 2)} Street`,
        city: 'Example City',
        state: 'CA',
        zip: String(94_100 + (i % 50)),
        latitude: 37.7 + random() / 10,
        longitude: -122.4 + random() / 10,
        avg_rating: Math.round(random() * 10) / 2,
        review_count: Math.floor(random() * 500),
        is_closed: false,
        categories: [{ name: words(random, 1), category_filter: words(random, 1) }],
        reviews: [{ id: `review-${i}`, rating: 1 + (i % 5), text_excerpt: words(random, 12), user_name: words(random, 1) }]
      }))
    }
  })
}

/** A document of about `bytes` bytes whose `leaf` member stays one small number whatever the size. */
export function sizedDocument (bytes: number): Json {
  return fitTo(bytes, (n) => {
    const random = seededRandom(bytes)
    return {
      leaf: 1,
      items: Array.from({ length: n }, (_, i) => ({ id: i, name: words(random, 2), score: Math.floor(random() * 1000) }))
    }
  })
}
