/**
 * What a bench command started (processes, clients, temporary folders), stopped in reverse order when
 * it finishes, fails, or is interrupted.
 */
export function createStoppers (label: string) {
  const stops: Array<() => Promise<void>> = []

  async function stopAll (): Promise<void> {
    while (stops.length) await stops.pop()!().catch((error: Error) => console.error(`${label}: ${error.message}`))
  }

  return {
    add (stop: () => Promise<void> | void): void {
      stops.push(async () => { await stop() })
    },
    stopAll,
    /** SIGINT or SIGTERM stops everything, then exits with 130. */
    stopOnSignals (): void {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => { void stopAll().finally(() => process.exit(130)) })
      }
    }
  }
}
