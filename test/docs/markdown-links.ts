/**
 * Relative links and #anchors of markdown files, checked the way GitHub renders them: a heading's anchor is
 * its text lowercased, punctuation other than `-` and `_` dropped, spaces made `-`, and a repeated anchor
 * numbered `-1`, `-2`... Code blocks and code spans hold no links and no headings.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/** A link that does not resolve: where it is, what it says, and why. */
export interface BrokenLink {
  file: string
  line: number
  target: string
  reason: string
}

/** The anchor GitHub gives a heading of this (markdown) text, before duplicates are numbered. */
export function slug (heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-')
}

/** The lines of a markdown text outside fenced code blocks, with their numbers and code spans blanked. */
function proseLines (markdown: string): Array<{ text: string, line: number }> {
  const lines: Array<{ text: string, line: number }> = []
  let fence: string | undefined
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      return
    }
    if (marker !== undefined) {
      fence = marker
      return
    }
    lines.push({ text: text.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length)), line: index + 1 })
  })
  return lines
}

/** Every anchor a markdown text defines: its headings' (numbered as GitHub numbers repeats) and HTML ids. */
export function anchorsOf (markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence: string | undefined
  for (const text of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      continue
    }
    if (marker !== undefined) {
      fence = marker
      continue
    }
    for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!)
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text)
    if (heading === null) continue
    const base = slug(heading[1]!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** The link targets of a markdown text, inline (`[text](target)`) and reference definitions (`[x]: target`). */
export function linksOf (markdown: string): Array<{ target: string, line: number }> {
  const links: Array<{ target: string, line: number }> = []
  for (const { text, line } of proseLines(markdown)) {
    for (const match of text.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: match[1]!, line })
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(text)
    if (definition !== null) links.push({ target: definition[1]!, line })
  }
  return links
}

/** The relative links and anchors in these files that do not resolve. */
export function brokenLinks (files: string[]): BrokenLink[] {
  const broken: BrokenLink[] = []
  const anchors = new Map<string, Set<string>>()
  const anchorsIn = (path: string): Set<string> => {
    let found = anchors.get(path)
    if (found === undefined) {
      found = anchorsOf(readFileSync(path, 'utf8'))
      anchors.set(path, found)
    }
    return found
  }
  for (const file of files) {
    for (const { target, line } of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue
      const hash = target.indexOf('#')
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
      const path = pathPart === '' ? file : resolve(dirname(file), pathPart)
      if (!existsSync(path)) {
        broken.push({ file, line, target, reason: `no file ${pathPart}` })
        continue
      }
      if (anchor === undefined) continue
      if (!statSync(path).isFile() || !path.endsWith('.md')) {
        broken.push({ file, line, target, reason: 'an anchor into something that is not a markdown file' })
      } else if (!anchorsIn(path).has(anchor)) {
        broken.push({ file, line, target, reason: `no heading with the anchor #${anchor}` })
      }
    }
  }
  return broken
}
