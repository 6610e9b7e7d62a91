import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { join } from 'node:path'
import type { CommandSender } from './load.js'

/** The machine a run measured on, as far as it explains the figures. */
export function describeMachine (): Record<string, unknown> {
  const cpus = os.cpus()
  return {
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30 * 10) / 10,
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100)
  }
}

function packageVersion (root: string, name: string): string {
  try {
    const require = createRequire(join(root, 'package.json'))
    const path = require.resolve(`${name}/package.json`)
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version
  } catch {
    return 'unknown'
  }
}

function gitCommit (root: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).trim() !== ''
    return dirty ? `${commit} (with uncommitted changes)` : commit
  } catch {
    return 'unknown'
  }
}

/** Versions of everything on the measured path: Node, the libraries, Redis and RedisJSON, the commit. */
export async function describeVersions (root: string, redis: CommandSender): Promise<Record<string, string>> {
  const info = String(await redis.sendCommand(['INFO', 'server']))
  const modules = await redis.sendCommand(['MODULE', 'LIST'])
  return {
    jsondocs: gitCommit(root),
    node: process.version,
    fastify: packageVersion(root, 'fastify'),
    redis: packageVersion(root, 'redis'),
    autocannon: packageVersion(root, 'autocannon'),
    'hdr-histogram-js': packageVersion(root, 'hdr-histogram-js'),
    'redis-server': /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
    RedisJSON: jsonModuleVersion(modules)
  }
}

/** MODULE LIST answers a list of maps (RESP3) or flat name/value lists (RESP2). */
function jsonModuleVersion (modules: unknown): string {
  if (!Array.isArray(modules)) return 'unknown'
  for (const entry of modules) {
    const fields = entry instanceof Map ? Object.fromEntries(entry) : pairs(entry)
    if (String(fields.name).toLowerCase() === 'rejson') {
      const version = Number(fields.ver)
      return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}.${version % 100}`
    }
  }
  return 'not loaded'
}

function pairs (entry: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (Array.isArray(entry)) for (let i = 0; i + 1 < entry.length; i += 2) out[String(entry[i])] = entry[i + 1]
  else if (entry && typeof entry === 'object') Object.assign(out, entry)
  return out
}
