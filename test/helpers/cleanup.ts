import { afterAll, onTestFinished } from 'vitest'

/** Runs fn when the current test ends, or after the file's tests when called outside a test. */
export function whenDone (fn: () => unknown): void {
  try {
    onTestFinished(async () => { await fn() })
  } catch {
    afterAll(async () => { await fn() })
  }
}
