/** Attempts of a body that keeps straddling windows, at most: two edges in a row mean the windows are too short for it. */
const ATTEMPTS = 3

/**
 * Runs a test body that counts against fixed windows aligned to the clock (rate limits, stream ticket
 * quotas, catch-up budgets). A body that ran across a window's edge was counted from zero half way, so its
 * failure says nothing of its subject: it runs again, from the start (the body makes its own app, keys and
 * credentials). A failure within one window fails the test.
 */
export async function inOneWindow (windowMs: number, body: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const startedIn = Math.floor(Date.now() / windowMs)
    try {
      await body()
      return
    } catch (error) {
      if (attempt === ATTEMPTS || Math.floor(Date.now() / windowMs) === startedIn) throw error
    }
  }
}
