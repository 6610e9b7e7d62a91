/**
 * npm run check:start: a newcomer's `npm start`, typed in a copy of the working tree (node_modules and
 * .redis linked, not copied), with npm on the machine's own Node as from a shell. The first start builds
 * dist/, the next builds nothing, a start after an edit to a source serves the edit, and a start after
 * that source is put back with an older modification time serves it as it was. Each start must print no
 * warning but the machine's own npm configuration's, and is timed from the command to the first 200 of
 * /health (.redis/ is linked, so a first start here does not include fetching Redis), and stopped with
 * SIGINT to its process group, as Ctrl-C does; a last start is stopped with SIGTERM to npm alone, as a
 * process manager does, and nothing it started may outlive it. `--runs N` repeats the first and the second
 * start N times and prints min/median/max.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { parseArgs } from 'node:util'

const root = join(import.meta.dirname, '..')
const { values } = parseArgs({ options: { runs: { type: 'string', default: '1' } } })
const runs = Number(values.runs)
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number of at least 1')

const HEALTHY_WITHIN_MS = 120_000
const STOPPED_WITHIN_MS = 20_000
/** What scripts/build-if-changed.ts prints when it runs tsc. */
const BUILD_LINE = /^build: .*\(tsc\)$/m
/** npm's warnings about settings it does not know in the user's, the global or the environment's npmrc. */
const MACHINE_NPM_CONFIG = /^npm warn Unknown (user|global|env) config /

interface Start { ms: number, built: boolean, output: string }

const log = (message: string): void => { console.error(`check:start: ${message}`) }

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** The environment of a shell: without what the npm running this check put in it. */
function shellEnvironment (port: number): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)))
  const npmAdded = (dir: string) => /node_modules[\\/]\.bin$|node-gyp-bin$/.test(dir)
  env.PATH = (env.PATH ?? '').split(delimiter).filter((dir) => !npmAdded(dir)).join(delimiter)
  env.PORT = String(port)
  delete env.NODE
  delete env.INIT_CWD
  return env
}

/** A copy of the files git sees in the working tree (tracked or not ignored), as a clone would hold them. */
function copyTree (): string {
  const tree = mkdtempSync(join(tmpdir(), 'jsondocs-start-'))
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0').filter((file) => file !== '' && existsSync(join(root, file)))
  for (const file of files) {
    mkdirSync(dirname(join(tree, file)), { recursive: true })
    copyFileSync(join(root, file), join(tree, file))
  }
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'))
  symlinkSync(join(root, '.redis'), join(tree, '.redis'))
  return tree
}

/** How a start is stopped: SIGINT to its whole process group, as Ctrl-C in a terminal; or SIGTERM to npm alone, as a process manager stops what it started. */
type StopBy = 'ctrl-c' | 'sigterm-to-npm'

/** Whether any process of the group led by `pid` still runs. */
function groupRuns (pid: number): boolean {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

async function stop (child: ChildProcess, by: StopBy = 'ctrl-c'): Promise<void> {
  const pid = child.pid!
  if (!groupRuns(pid)) return
  const signal = (name: NodeJS.Signals, target = -pid) => { try { process.kill(target, name) } catch { /* already gone */ } }
  if (by === 'ctrl-c') signal('SIGINT')
  else signal('SIGTERM', pid)
  const began = performance.now()
  while (groupRuns(pid) && performance.now() - began < STOPPED_WITHIN_MS) await new Promise((resolve) => setTimeout(resolve, 50))
  if (!groupRuns(pid)) return
  signal('SIGKILL')
  throw new Error(`npm start left processes running ${STOPPED_WITHIN_MS} ms after ${by === 'ctrl-c' ? 'SIGINT to its group' : 'SIGTERM to npm'}`)
}

/** Types `npm start` in the tree, waits for /health to answer 200, stops it (with SIGINT as Ctrl-C does, unless told). */
async function start (tree: string, by: StopBy = 'ctrl-c'): Promise<Start> {
  const port = await freePort()
  const began = performance.now()
  const child = spawn('npm', ['start'], { cwd: tree, env: shellEnvironment(port), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  try {
    for (;;) {
      const answer = await fetch(`http://127.0.0.1:${port}/health`).then((response) => response.status, () => 0)
      if (answer === 200) break
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`)
      if (performance.now() - began > HEALTHY_WITHIN_MS) throw new Error(`no 200 from /health within ${HEALTHY_WITHIN_MS} ms:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const ms = performance.now() - began
    await stop(child, by)
    const warnings = output.split('\n').filter((line) => isWarning(line) && !MACHINE_NPM_CONFIG.test(line))
    if (warnings.length > 0) throw new Error(`npm start printed warnings:\n${warnings.join('\n')}`)
    return { ms, built: BUILD_LINE.test(output), output }
  } finally {
    if (groupRuns(child.pid!)) process.kill(-child.pid!, 'SIGKILL')
  }
}

/** An npm or Node.js warning, or a log line of level warn or above. */
function isWarning (line: string): boolean {
  if (/^npm warn /i.test(line) || /Warning: /.test(line)) return true
  if (!line.startsWith('{')) return false
  try {
    return (JSON.parse(line) as { level?: number }).level! >= 40
  } catch {
    return false
  }
}

function expect (condition: boolean, failure: string, start: Start): void {
  if (!condition) throw new Error(`${failure}; npm start printed:\n${start.output}`)
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`
function summary (label: string, times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)]!
  log(runs === 1
    ? `${label}: ${seconds(sorted[0]!)}`
    : `${label}: min ${seconds(sorted[0]!)}, median ${seconds(median)}, max ${seconds(sorted.at(-1)!)} (${runs} runs)`)
}

execFileSync('bash', [join(root, 'scripts/provision-redis.sh')], { stdio: 'inherit' })
const tree = copyTree()
try {
  const first: number[] = []
  const second: number[] = []
  for (let run = 0; run < runs; run++) {
    rmSync(join(tree, 'dist'), { recursive: true, force: true })
    rmSync(join(tree, 'data'), { recursive: true, force: true })
    const cold = await start(tree)
    expect(cold.built, 'the first start did not build dist/', cold)
    first.push(cold.ms)
    const warm = await start(tree)
    expect(!warm.built, 'the second start built dist/ again, though no source changed', warm)
    second.push(warm.ms)
  }
  summary('first start (builds dist/)', first)
  summary('second start (builds nothing)', second)

  // An edit to a module the entry imports, not to the entry itself; seen in what the running service prints.
  const source = join(tree, 'src/config.ts')
  const original = readFileSync(source)
  const before = statSync(source).mtime
  const marker = `check:start edited ${randomUUID()}`
  appendFileSync(source, `\nconsole.error(${JSON.stringify(marker)})\n`)
  const edited = await start(tree)
  expect(edited.built && edited.output.includes(marker), 'the start after an edit did not serve it', edited)
  log(`start after an edit to src/config.ts (compiles it): ${seconds(edited.ms)}`)

  writeFileSync(source, original)
  utimesSync(source, before, before)
  const restored = await start(tree)
  expect(restored.built && !restored.output.includes(marker), 'the start after putting src/config.ts back with its older time served the edit', restored)
  log(`start after src/config.ts is put back with its older time (compiles it): ${seconds(restored.ms)}`)
  log('a stale dist/ is never served; the second start builds nothing')

  const managed = await start(tree, 'sigterm-to-npm')
  log(`SIGTERM to npm alone stops the service and its Redis (started in ${seconds(managed.ms)})`)
} finally {
  rmSync(tree, { recursive: true, force: true })
}
