import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Seconds each file took, by `<project>:<file>`, as scripts/test-durations.ts last wrote them. */
const DURATIONS_FILE = new URL('../durations.json', import.meta.url)

/**
 * vitest's order (each project's files one after another, by groupOrder; failed files first, then the
 * longest) with the durations vitest keeps of this checkout's runs, and before it has any (a fresh clone)
 * those of test/durations.json: run longest first, the files that take longest do not start last and hold
 * up the end of the run while other workers idle. Files without a duration (new ones) run first.
 */
export class DurationSequencer extends BaseSequencer {
  override async sort (files: TestSpecification[]): Promise<TestSpecification[]> {
    const committed = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>
    const { cache, config } = this.ctx
    const keyOf = (file: TestSpecification) => `${file.project.name}:${relative(config.root, file.moduleId)}`
    const known = (file: TestSpecification) => {
      const result = cache.getFileTestResults(keyOf(file))
      if (result) return { failed: result.failed, duration: result.duration }
      const seconds = committed[keyOf(file)]
      return { failed: false, duration: seconds === undefined ? Infinity : seconds * 1000 }
    }
    return [...files].sort((a, b) => {
      const groupOrder = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder
      if (groupOrder !== 0) return groupOrder
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1
      const [stateA, stateB] = [known(a), known(b)]
      if (stateA.failed !== stateB.failed) return stateA.failed ? -1 : 1
      return stateB.duration === stateA.duration ? 0 : stateB.duration > stateA.duration ? 1 : -1
    })
  }
}
