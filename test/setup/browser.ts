import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium the browser tests drive, and the LD_LIBRARY_PATH it needs ('' for none). */
    chromium: { path: string, libraryPath: string }
  }
}

/** Debian's chromium package, when the machine has it installed. */
const INSTALLED = '/usr/bin/chromium'

/**
 * The browser the browser tests drive: CHROMIUM_PATH, else Debian's installed chromium, else one the project
 * unpacks from Debian's packages into .tools/chromium, once (scripts/provision-chromium.sh).
 */
export default function setup (project: TestProject) {
  const given = process.env.CHROMIUM_PATH
  if (given || existsSync(INSTALLED)) {
    project.provide('chromium', { path: given || INSTALLED, libraryPath: '' })
    return
  }
  const printed = execFileSync('bash', ['scripts/provision-chromium.sh'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' })
  const [path, libraryPath] = printed.trim().split('\n')
  project.provide('chromium', { path: path!, libraryPath: libraryPath! })
}
