import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The service's entry point, src/server.ts compiled to JavaScript, for tests that start it as a process. */
    serviceEntry: string
  }
}

const root = join(import.meta.dirname, '../..')
/**
 * src/ compiled module by module, as tsx compiles it on every start (esbuild, no bundling). One level below
 * the project like dist/, so that the paths the sources take from their own place (../../.redis/) hold.
 */
const outDir = join(root, '.test-build')
const stamp = join(outDir, '.built-from')

function sourceFiles (): string[] {
  return readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

/** What the build is made of: each source by content, and esbuild's version. */
async function digestOf (sources: string[]): Promise<string> {
  const { version } = await import('esbuild')
  const hash = createHash('sha256').update(`esbuild ${version}\n`)
  for (const file of sources) hash.update(`${relative(root, file)}\n`).update(readFileSync(file))
  return hash.digest('hex') + '\n'
}

/**
 * Compiles src/ into .test-build/ unless it was compiled from these very sources: a service process then
 * starts on plain Node in about 2 s of CPU, where through tsx (its loader resolving and loading every
 * module, node_modules' too) it took nearly 4 s. The suite starts some 15 of them, workers included.
 */
async function buildService (): Promise<string> {
  const sources = sourceFiles()
  const digest = await digestOf(sources)
  const entry = join(outDir, 'server.js')
  if (existsSync(entry) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return entry
  const building = mkdtempSync(`${outDir}.`)
  const { build } = await import('esbuild')
  try {
    await build({
      entryPoints: sources, outdir: building, outbase: join(root, 'src'),
      format: 'esm', platform: 'node', target: 'node24', logLevel: 'warning'
    })
  } catch (error) {
    rmSync(building, { recursive: true, force: true })
    throw error
  }
  writeFileSync(join(building, '.built-from'), digest)
  rmSync(outDir, { recursive: true, force: true })
  try {
    renameSync(building, outDir)
  } catch (error) {
    // Another setup put its build there first: the same, if it was made from the same sources.
    rmSync(building, { recursive: true, force: true })
    if (readFileSync(stamp, 'utf8') !== digest) throw error
  }
  return entry
}

/** The projects' setups run in one process: they share one build. */
let built: Promise<string> | undefined

export default async function setup (project: TestProject) {
  built ??= buildService()
  project.provide('serviceEntry', await built)
}
