/**
 * Builds the browser and Node client (client/src) into one self-contained ES module, client/dist/jsondocs.js,
 * with its source map, unless it was built from exactly the sources there are now (compared by content,
 * with esbuild's version). `npm run build:client`, `npm start` and the test suite's setup run it; it takes
 * about 0.1 s when nothing changed. Node 24 runs this file as it is (type stripping).
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

const root = join(import.meta.dirname, '..')
const sourceDir = join(root, 'client/src')
const outDir = join(root, 'client/dist')
const stamp = join(outDir, '.built-from')
/** The bundle and its map, as the service serves them. */
export const clientBundle = join(outDir, 'jsondocs.js')

/** esbuild's version, read without loading it: a start that builds nothing does not pay for its import. */
function esbuildVersion (): string {
  const entry = createRequire(import.meta.url).resolve('esbuild')
  return (JSON.parse(readFileSync(join(entry, '../../package.json'), 'utf8')) as { version: string }).version
}

function inputsDigest (): string {
  const files = readdirSync(sourceDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
  // The types the sources import from the description change no output, but a changed description should
  // not leave a bundle built against older types unnoticed by typecheck; they are cheap to include.
  files.push(join(root, 'openapi/client/schema.d.ts'), join(root, 'client/package.json'))
  const lines = [`esbuild ${esbuildVersion()}`, ...files.sort().map((file) =>
    `${relative(root, file)} ${createHash('sha256').update(readFileSync(file)).digest('hex')}`)]
  return createHash('sha256').update(lines.join('\n')).digest('hex') + '\n'
}

/** Builds the bundle when it is missing or older than its sources; whether it built. */
export async function buildClient ({ force = false } = {}): Promise<boolean> {
  const inputs = inputsDigest()
  if (!force && existsSync(clientBundle) && existsSync(stamp) && readFileSync(stamp, 'utf8') === inputs) return false
  rmSync(stamp, { force: true })
  const { build } = await import('esbuild')
  await build({
    entryPoints: [join(sourceDir, 'index.ts')],
    outfile: clientBundle,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: true,
    legalComments: 'none',
    logLevel: 'warning'
  })
  writeFileSync(stamp, inputs)
  return true
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const built = await buildClient({ force: process.argv.includes('--force') })
  if (built) console.error(`build: client/src bundled into ${relative(root, clientBundle)} (esbuild)`)
}
