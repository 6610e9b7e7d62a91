import type { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { compileLinearPattern, type LinearPattern } from './linear-regexp.js'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** Octets of a dotted IPv4 address, as ajv-formats' `url` reads them. */
const OCTET = '(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])'
const LAST_OCTET = '(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4])'
/** First octets 1-223 except 10, 127, 169, 172 and 192, which open private or reserved ranges. */
const PUBLIC_FIRST_OCTET = '(?:[1-9]|1[1-9]|[2-9]\\d|1[01]\\d|12[0-689]|1[3-5]\\d|16[0-8]|17[013-9]|18\\d|19[013-9]|2[01]\\d|22[0-3])'
/** A public IPv4 address: 169.254/16, 192.168/16 and 172.16/12 are excluded by their second octet. */
const PUBLIC_IPV4 = `(?:${PUBLIC_FIRST_OCTET}\\.${OCTET}` +
  '|169\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-35])' +
  '|192\\.(?:\\d{1,2}|1(?:[0-57-9]\\d|6[0-79])|2[0-4]\\d|25[0-5])' +
  '|172\\.(?:\\d|0\\d|1[0-5]|3[2-9]|[4-9]\\d|1\\d\\d|2[0-4]\\d|25[0-5])' +
  `)\\.${OCTET}\\.${LAST_OCTET}`
const LABEL = '(?:[a-z0-9\\u{00a1}-\\u{ffff}]+-)*[a-z0-9\\u{00a1}-\\u{ffff}]+'

/**
 * ajv-formats' `url` (its /iu regular expression, Diego Perini's), which V8 matches in quadratic time: a
 * 88 kB string with many `:` takes 3.6 s, and 1 MiB would take minutes. Its three lookaheads only
 * exclude private IPv4 ranges, so they are written out as alternatives, and the linear-time engine runs it.
 */
export const URL_PATTERN = '(?i:^(?:https?|ftp):\\/\\/(?:\\S+(?::\\S*)?@)?' +
  `(?:${PUBLIC_IPV4}|(?:${LABEL})(?:\\.${LABEL})*(?:\\.(?:[a-z\\u{00a1}-\\u{ffff}]{2,})))` +
  '(?::\\d{2,5})?(?:\\/[^\\s]*)?$)'

/**
 * The formats of documents' schemas: ajv-formats' full set, each checked against long hostile strings.
 * All but `url` run in linear time in V8 (the others' regular expressions do not backtrack without
 * bound, or are bounded by lookaheads); `url` runs on the linear-time engine.
 */
export function addDocumentFormats (ajv: Ajv2020): void {
  addFormats(ajv)
  ajv.addFormat('url', { type: 'string', validate: (text: string) => urlPattern().test(text) })
}

/* Compiled once, when first used (tens of milliseconds), like the formats' own regular expressions. */
let compiledUrl: LinearPattern | undefined
function urlPattern (): LinearPattern {
  compiledUrl ??= compileLinearPattern(URL_PATTERN)
  return compiledUrl
}
