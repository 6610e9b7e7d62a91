/**
 * npm start's build: compiles src/ into dist/ with tsc (incremental: only what changed is checked and
 * written again), unless dist/ was built from exactly the inputs there are now. Inputs are compared by
 * content, not by modification time, so a file put back with an older time (cp -p, rsync -a, tar) is
 * seen too. Node 24 runs this file as it is (type stripping, no loader): the check takes about 0.1 s,
 * where tsc takes about two seconds to find nothing to do.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'

const root = join(import.meta.dirname, '..')
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
/** tsconfig.json's tsBuildInfoFile: what tsc's incremental build remembers of the sources it compiled. */
const buildInfo = join(root, 'dist/tsconfig.tsbuildinfo')
/** What the last build of this script was made from; BUILDING while tsc runs, FAILED after tsc refused. */
const stamp = join(root, 'dist/.built-from')
const BUILDING = 'building\n'
const FAILED = 'failed\n'

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex')

/**
 * A digest of what tsc's output depends on: the files under src/ (tsconfig.json's include), tsconfig.json,
 * package.json (its "type" decides the module format) and package-lock.json (the dependencies whose
 * declarations tsc reads), and tsc's own version.
 */
function inputsDigest (): string {
  const sources = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
  const { version } = JSON.parse(readFileSync(join(tsc, '../../package.json'), 'utf8')) as { version: string }
  const lines = [`typescript ${version}`]
  for (const file of ['tsconfig.json', 'package.json', 'package-lock.json', ...sources].sort()) {
    lines.push(`${file} ${sha256(readFileSync(join(root, file)))}`)
  }
  return sha256(lines.join('\n'))
}

/**
 * What dist/ holds: the sources' digest and the build info's, as this script last wrote them. The build
 * info's digest changes whenever any other tsc run (npm run build) writes dist/, so the stamp then no
 * longer vouches for it.
 */
function builtFrom (inputs: string): string {
  return `${inputs} ${existsSync(buildInfo) ? sha256(readFileSync(buildInfo)) : 'none'}\n`
}

const previous = existsSync(stamp) ? readFileSync(stamp, 'utf8') : undefined
const inputs = inputsDigest()
if (previous === builtFrom(inputs)) process.exit(0)

// A build that was interrupted may have written some files and not the build info that lists them:
// tsc would trust that build info and leave those files as they are, so it starts from nothing.
if (previous === BUILDING) rmSync(buildInfo, { force: true })
console.error(previous === undefined
  ? 'build: compiling src/ into dist/ (tsc)'
  : 'build: src/ changed since dist/ was built; compiling what changed (tsc)')
mkdirSync(join(root, 'dist'), { recursive: true })
writeFileSync(stamp, BUILDING)
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' })
if (result.status === 0) {
  writeFileSync(stamp, builtFrom(inputs))
} else {
  // tsc finished and reported errors: its build info matches what it wrote, the next start tries again.
  if (result.status !== null) writeFileSync(stamp, FAILED)
  process.exit(result.status ?? 1)
}
