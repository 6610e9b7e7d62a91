/**
 * What validating a document against pattern-heavy schemas costs, on V8's backtracking engine (the
 * documents' ajv as it was) and on the linear-time engine (as it is). Each measurement runs in a child
 * process of its own, stopped after --cap seconds (default 60), so a stall shows as "> cap".
 *
 *   npx tsx bench/patterns.ts [--cap 60] [--only <regex>]
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { compileDocumentSchema } from '../src/collections/validator.js'

const MiB = 1024 * 1024

interface Case { name: string, schema: object, document: () => unknown }

const stringWith = (pattern: string) => ({ type: 'object', properties: { v: { type: 'string', pattern } } })
const itemsWith = (pattern: string) => ({ type: 'object', properties: { v: { type: 'array', items: { type: 'string', pattern } } } })

/** Strings of 20 kB over a and b, with a c every `gap` characters: what makes a DFA build a state per character. */
function thrashing (gap: number) {
  let seed = 1
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  return Array.from({ length: MiB / 20_480 }, () =>
    Array.from({ length: 20_480 }, (_, index) => index % gap === 0 ? 'c' : random() < 0.5 ? 'a' : 'b').join(''))
}

const people = () => ({
  people: Array.from({ length: 6000 }, (_, index) => ({
    name: 'Zoë Ñúñez-Lee', email: `person.${index}@mail.example.org`, born: '1990-12-31', code: `AB-${1000 + index}`,
    phone: '+4915112345678', tags: { 'x-team': 'core', 'x-site': 'paris' }
  }))
})

const cases: Case[] = [
  { name: 'issue: ^(a+)+$ on 29 characters', schema: stringWith('^(a+)+$'), document: () => ({ v: 'a'.repeat(29) + '!' }) },
  { name: 'issue: ^(a+)+$ on 1 MiB', schema: stringWith('^(a+)+$'), document: () => ({ v: 'a'.repeat(MiB) + '!' }) },
  {
    name: 'ordinary patterns, 1 MiB of 6000 records',
    schema: {
      type: 'object',
      properties: {
        people: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', pattern: '^\\p{Lu}[\\p{L}\\p{M}\' -]*$' },
              email: { type: 'string', pattern: '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$' },
              born: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$' },
              code: { type: 'string', pattern: '^[A-Z]{2}-\\d{4}$' },
              phone: { type: 'string', pattern: '^\\+?[1-9]\\d{1,14}$' },
              tags: { type: 'object', patternProperties: { '^x-[a-z]+$': { type: 'string', pattern: '^[a-z]+$' } } }
            }
          }
        }
      }
    },
    document: people
  },
  { name: 'ordinary pattern, one string of 1 MiB', schema: stringWith('^[\\p{L}\\s]+$'), document: () => ({ v: 'word '.repeat(MiB / 5) }) },
  {
    name: 'ordinary formats, 1 MiB of 6000 records',
    schema: { type: 'object', properties: { people: { type: 'array', items: { type: 'object', properties: { email: { format: 'email' }, born: { format: 'date' }, site: { format: 'url' } } } } } },
    document: () => ({ people: Array.from({ length: 6000 }, (_, index) => ({ email: `p.${index}@mail.example.org`, born: '1990-12-31', site: `https://example.org/people/${index}/profile?tab=about`, pad: 'x'.repeat(80) })) })
  },
  { name: 'hostile: ^(\\w+\\s?)*$ on 50 strings of 20 kB', schema: itemsWith('^(\\w+\\s?)*$'), document: () => ({ v: Array.from({ length: 50 }, () => 'word '.repeat(4000) + '!') }) },
  { name: 'hostile: url format on 300 kB', schema: { type: 'string', format: 'url' }, document: () => 'ftp://172.30.3.56' + '4.1.6.7:155'.repeat(27_000) + '\u0000' },
  { name: 'linear engine\'s worst: a[ab]{50}c on 1 MiB', schema: itemsWith('a[ab]{50}c'), document: () => ({ v: thrashing(25) }) },
  { name: 'linear engine\'s worst: a[ab]{999}[ab]{999}c on 1 MiB', schema: itemsWith('a[ab]{999}[ab]{999}c'), document: () => ({ v: thrashing(1000) }) }
]

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** The documents' ajv as it was before patterns ran in linear time. */
function backtrackingValidator (schema: object) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false, validateFormats: true })
  addFormats(ajv)
  const validate = ajv.compile(schema)
  return (document: unknown) => validate(document)
}

/** Milliseconds of validation, the best of up to three runs (one when a run takes over a second). */
function measure (engine: string, name: string): number {
  const found = cases.find((candidate) => candidate.name === name)
  if (!found) throw new Error(`no case ${name}`)
  const validate = engine === 'backtracking' ? backtrackingValidator(found.schema) : compileDocumentSchema(found.schema)
  const document = found.document()
  let best = Infinity
  for (let run = 0; run < 3 && (run === 0 || best < 1000); run++) {
    const start = process.hrtime.bigint()
    validate(document)
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6)
  }
  return best
}

function arg (name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`)
  return index < 0 ? undefined : process.argv[index + 1]
}

if (arg('measure') !== undefined) {
  process.stdout.write(JSON.stringify(measure(arg('engine') ?? 'linear', arg('measure') as string)))
} else {
  const capSeconds = Number(arg('cap') ?? 60)
  const only = new RegExp(arg('only') ?? '')
  const file = fileURLToPath(import.meta.url)
  const run = (engine: string, name: string) => {
    try {
      const output = execFileSync(process.execPath, [...process.execArgv, file, '--measure', name, '--engine', engine],
        { timeout: capSeconds * 1000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
      const ms = Number(output)
      return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`
    } catch {
      return `> ${capSeconds} s (stopped)`
    }
  }
  console.log('| document and schema | V8 (backtracking) | linear-time engine |\n| --- | --- | --- |')
  for (const { name } of cases.filter((candidate) => only.test(candidate.name))) {
    console.log(`| ${name} | ${run('backtracking', name)} | ${run('linear', name)} |`)
  }
}
