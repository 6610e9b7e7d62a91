import { parseArgs } from 'node:util'
import type { RowSpec, Scenario } from '../scenarios/scenario.js'

export interface RunOptions {
  smoke: boolean
  /** Seconds of measurement per row and per side (service, direct). */
  duration: number
  /** Seconds of warm-up before each measurement. */
  warmup: number
  connections: number
  /** Seconds of the memory soak. */
  soak: number
  only?: RegExp
  /** CACHE_MAX_ENTRIES of the second service, the one the cached rows run against. */
  cacheEntries: number
  /** `dist` builds and runs node dist/server.js; `tsx` runs src/server.ts without building. */
  mode: 'dist' | 'tsx'
  logLevel: string
  out?: string
  /** Settings given to the services beyond the runner's own (`--env NAME=VALUE`), e.g. AUTH_ADMIN_TOKEN for metrics. */
  env: Record<string, string>
  /**
   * Header fields sent with every request to the services (`--header NAME=VALUE`), e.g. credentials to
   * measure them with access enforced; never to the no-op server, the floor or Redis.
   */
  headers: Record<string, string>
}

export const USAGE = `npm run bench [-- options]
  --duration <s>       measurement per row and side (default 3; smoke 0.2)
  --warmup <s>         warm-up before each measurement (default 1; smoke 0.1)
  --connections <n>    concurrency of every row but the ceiling sweep (default 16)
  --soak <s>           memory soak length (default 120; smoke 1)
  --only <regex>       only rows whose id matches, e.g. 'object-380b|ceiling/noop-c16'
  --cache-entries <n>  CACHE_MAX_ENTRIES of the service the cached rows use (default 10000)
  --skip-build         run src/server.ts with tsx instead of building dist/
  --log-level <level>  LOG_LEVEL of the service and the no-op server (default warn)
  --out <dir>          where results go (default bench/results/<timestamp>; smoke: a temp dir)
  --env NAME=VALUE     a setting for both services (repeatable), e.g. --env AUTH_ADMIN_TOKEN=... to measure them with metrics on
  --header NAME=VALUE  a header field of every request to the services (repeatable), e.g. --header 'authorization=Bearer ...'
  --smoke              every family for a fraction of a second, failing on any error`

function positive (name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} takes a positive number, not "${text}"`)
  return value
}

export function parseOptions (argv: string[]): RunOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      smoke: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      soak: { type: 'string' },
      only: { type: 'string' },
      'cache-entries': { type: 'string' },
      'skip-build': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'warn' },
      out: { type: 'string' },
      env: { type: 'string', multiple: true },
      header: { type: 'string', multiple: true },
      help: { type: 'boolean', default: false }
    },
    strict: true
  })
  if (values.help) {
    console.log(USAGE)
    process.exit(0)
  }
  const smoke = values.smoke === true
  return {
    smoke,
    duration: positive('duration', values.duration, smoke ? 0.2 : 3),
    warmup: positive('warmup', values.warmup, smoke ? 0.1 : 1),
    connections: Math.round(positive('connections', values.connections, 16)),
    soak: positive('soak', values.soak, smoke ? 1 : 120),
    ...(values.only === undefined ? {} : { only: new RegExp(values.only) }),
    cacheEntries: Math.round(positive('cache-entries', values['cache-entries'], 10_000)),
    // The smoke proves the suite, not the build: it runs the sources through tsx.
    mode: values['skip-build'] === true || smoke ? 'tsx' : 'dist',
    logLevel: values['log-level'] ?? 'warn',
    ...(values.out === undefined ? {} : { out: values.out }),
    env: namedValues('env', values.env),
    headers: namedValues('header', values.header)
  }
}

function namedValues (option: string, settings: string[] = []): Record<string, string> {
  return Object.fromEntries(settings.map((setting) => {
    const [name, ...value] = setting.split('=')
    if (!name || value.length === 0) throw new Error(`--${option} takes NAME=VALUE, not "${setting}"`)
    return [name, value.join('=')]
  }))
}

/** The rows a run measures: all, or for the smoke one read and one write per family; then --only. */
export function selectRows (scenarios: Scenario[], options: RunOptions): Scenario[] {
  return scenarios.map((scenario) => {
    let rows: RowSpec[] = scenario.rows
    if (options.smoke) {
      const read = rows.find((row) => row.kind === 'read' && (row.connections ?? 16) === 16)
      const write = rows.find((row) => row.kind === 'write')
      rows = rows.filter((row) => row === read || row === write)
    }
    if (options.only) rows = rows.filter((row) => options.only!.test(row.id))
    return { ...scenario, rows }
  }).filter((scenario) => scenario.rows.length > 0)
}
