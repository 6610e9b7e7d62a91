import { BadRequestError } from '../errors.js'

/**
 * Conditional requests (RFC 9110 section 13). Versions are decimal strings; the ETag of a version v
 * is the strong entity-tag "v".
 */

export function etagOf (version: string): string {
  return `"${version}"`
}

const ENTITY_TAG_LIST = /^\s*(?:(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"\s*(?:,\s*|$))+$/

/**
 * What an If-Match or If-None-Match header may hold, as a JSON Schema pattern ("*" or a list of
 * entity-tags), written for any regular expression engine: schema validators and API fuzzers alike.
 */
export const CONDITION_HEADER_PATTERN = String.raw`^\s*(\*|(W/)?"[!#-~\x80-\xff]*"(\s*,\s*(W/)?"[!#-~\x80-\xff]*")*)\s*$`
const ENTITY_TAG = /(W\/)?"([^"]*)"/g
const VERSION = /^\d+$/

/** Matches nothing: versions are digits only. */
const NO_VERSION = '-'

interface EntityTag { weak: boolean, opaque: string }

function parseList (header: string, name: string): '*' | EntityTag[] {
  if (header.trim() === '*') return '*'
  if (!ENTITY_TAG_LIST.test(header)) throw new BadRequestError(`${name} is not "*" or a list of entity-tags`)
  return [...header.matchAll(ENTITY_TAG)].map((match) => ({ weak: match[1] !== undefined, opaque: match[2]! }))
}

/**
 * An If-Match or If-None-Match header as the write scripts take it: '' when absent, '*', or the
 * versions it names joined by ','. If-Match compares strongly (weak tags never match), If-None-Match
 * weakly.
 */
export function versionCondition (header: string | undefined, name: 'If-Match' | 'If-None-Match'): string {
  if (header === undefined) return ''
  const tags = parseList(header, name)
  if (tags === '*') return '*'
  const versions = tags
    .filter((tag) => name === 'If-None-Match' || !tag.weak)
    .map((tag) => tag.opaque)
    .filter((opaque) => VERSION.test(opaque))
  return versions.length ? versions.join(',') : NO_VERSION
}

/** Whether If-None-Match on a read matches the current version (the answer is then 304). */
export function noneMatchHolds (header: string | undefined, version: string): boolean {
  const condition = versionCondition(header, 'If-None-Match')
  if (condition === '') return true
  return condition !== '*' && !condition.split(',').includes(version)
}
