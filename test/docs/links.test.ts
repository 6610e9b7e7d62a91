import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { anchorsOf, brokenLinks, linksOf, slug } from './markdown-links.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const docs = join(root, 'docs')
const userDocs = [
  join(root, 'README.md'), join(root, 'CHANGELOG.md'), join(root, 'bench', 'README.md'),
  ...readdirSync(docs).filter((name) => name.endsWith('.md')).map((name) => join(docs, name))
]

describe('the documentation', () => {
  it('has every relative link and #anchor of README.md, CHANGELOG.md, docs/*.md and bench/README.md resolve', () => {
    expect(brokenLinks(userDocs)).toEqual([])
  })

  it('reaches every page of docs/ from the README', () => {
    const linked = new Set(linksOf(readFileSync(join(root, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]))
    for (const page of readdirSync(docs).filter((name) => name.endsWith('.md'))) expect(linked, page).toContain(`docs/${page}`)
  })
})

describe('anchors, as GitHub makes them', () => {
  it.each([
    ['Quick start', 'quick-start'],
    ['Redis for development and tests', 'redis-for-development-and-tests'],
    ['What the metrics cost (`npx tsx bench/observability.ts`)', 'what-the-metrics-cost-npx-tsx-benchobservabilityts'],
    ['Under wrk, beside Webdis (`npm run bench:wrk`)', 'under-wrk-beside-webdis-npm-run-benchwrk'],
    ['Conditional requests (RFC 9110)', 'conditional-requests-rfc-9110'],
    ['**Cost** and `scale`', 'cost-and-scale'],
    ['snake_case and kebab-case', 'snake_case-and-kebab-case'],
    ['[A link](x.md) inside', 'a-link-inside'],
    ['Ünïcode headings', 'ünïcode-headings']
  ])('%s is #%s', (heading, anchor) => {
    expect(slug(heading)).toBe(anchor)
  })

  it('numbers a repeated heading -1, -2, and ignores headings inside code blocks', () => {
    const anchors = anchorsOf('# Setup\n## Setup\n```sh\n# Setup\n```\n### Setup\n<a name="custom"></a>\n')
    expect([...anchors].sort()).toEqual(['custom', 'setup', 'setup-1', 'setup-2'])
  })
})

describe('the check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-links-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'docs'))
  writeFileSync(join(dir, 'docs', 'topic.md'), '# Topic\n\n## A part\n\nSee [back](../README.md#intro) and [self](#a-part).\n')
  writeFileSync(join(dir, 'README.md'), [
    '# Intro',
    '[fine](docs/topic.md) [fine anchor](docs/topic.md#a-part) [own](#intro) [web](https://example.com/x.md#nowhere)',
    '[missing file](docs/gone.md)',
    '[missing anchor](docs/topic.md#no-such-part)',
    '[missing own anchor](#outro)',
    '`[in a code span](docs/gone.md)`',
    '```',
    '[in a code block](docs/gone.md)',
    '```',
    '[ref]: docs/also-gone.md'
  ].join('\n'))

  it('passes links that resolve and reports each that does not, with its line', () => {
    const broken = brokenLinks([join(dir, 'README.md'), join(dir, 'docs', 'topic.md')])
    expect(broken.map(({ line, target }) => `${line} ${target}`)).toEqual([
      '3 docs/gone.md', '4 docs/topic.md#no-such-part', '5 #outro', '10 docs/also-gone.md'
    ])
  })
})
