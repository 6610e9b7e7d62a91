import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium the browser tests drive: CHROMIUM_PATH or the machine's, '' for the one the project provisions. */
    chromium: string
  }
}

/** Debian's chromium package, when the machine has it installed. */
const INSTALLED = '/usr/bin/chromium'

/**
 * The browser the browser tests drive: CHROMIUM_PATH, else Debian's installed chromium, else one the project
 * unpacks from Debian's packages into .tools/chromium, once (scripts/provision-chromium.sh). The unpacking
 * starts here and runs while the first files do; a browser test that comes before it is done waits for it
 * (test/browser/browser.ts).
 */
export default function setup (project: TestProject) {
  const given = process.env.CHROMIUM_PATH || (existsSync(INSTALLED) ? INSTALLED : '')
  project.provide('chromium', given)
  if (given) return
  const provisioning = new Promise<void>((resolve) => {
    const child = execFile('bash', ['scripts/provision-chromium.sh'], () => resolve())
    child.stderr?.pipe(process.stderr)
  })
  return () => provisioning
}
