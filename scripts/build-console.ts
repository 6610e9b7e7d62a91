/**
 * Builds the console (console/src, with the client's sources it imports, and console/static) into
 * console/dist: index.html, console.js and console.css, as the service serves them at /console, unless it
 * was built from exactly the inputs there are now (compared by content, with esbuild's version).
 * `npm run build:console`, `npm start` and the test suite's setup run it. Node 24 runs this file as it is
 * (type stripping), so it imports nothing of the project's (build-client.ts keeps the same few lines).
 */
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

const root = join(import.meta.dirname, '..')
const outDir = join(root, 'console/dist')
const stamp = join(outDir, '.built-from')
/** Where the built console is, as the service serves it. */
export const CONSOLE_DIST = outDir
/** The files the console is made of, each served at /console (index.html) or /console/<name>. */
export const CONSOLE_FILES = ['index.html', 'console.js', 'console.css'] as const

function esbuildVersion (): string {
  const entry = createRequire(import.meta.url).resolve('esbuild')
  return (JSON.parse(readFileSync(join(entry, '../../package.json'), 'utf8')) as { version: string }).version
}

function inputsDigest (): string {
  const files = ['console/src', 'console/static', 'client/src'].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name)))
  const lines = [`esbuild ${esbuildVersion()}`, ...files.sort().map((file) =>
    `${relative(root, file)} ${createHash('sha256').update(readFileSync(file)).digest('hex')}`)]
  return createHash('sha256').update(lines.join('\n')).digest('hex') + '\n'
}

/** Builds the console when it is missing or older than its sources; whether it built. */
export async function buildConsole ({ force = false } = {}): Promise<boolean> {
  const inputs = inputsDigest()
  const built = CONSOLE_FILES.every((name) => existsSync(join(outDir, name)))
  if (!force && built && existsSync(stamp) && readFileSync(stamp, 'utf8') === inputs) return false
  rmSync(stamp, { force: true })
  const { build } = await import('esbuild')
  const common = { bundle: true, minify: true, legalComments: 'none', logLevel: 'warning' } as const
  await build({
    ...common,
    entryPoints: [join(root, 'console/src/main.ts')],
    outfile: join(outDir, 'console.js'),
    format: 'esm',
    platform: 'browser',
    target: 'es2022'
  })
  await build({ ...common, entryPoints: [join(root, 'console/static/console.css')], outfile: join(outDir, 'console.css') })
  copyFileSync(join(root, 'console/static/index.html'), join(outDir, 'index.html'))
  writeFileSync(stamp, inputs)
  return true
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const built = await buildConsole({ force: process.argv.includes('--force') })
  if (built) console.error(`build: console/src bundled into ${relative(root, outDir)} (esbuild)`)
}
