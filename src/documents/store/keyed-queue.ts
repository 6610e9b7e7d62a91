/**
 * Runs tasks one after another per key, and tasks of different keys freely. Validated writes to one
 * document go through it, so writers in the same instance do not keep invalidating each other's
 * previews; writers in other instances are still caught by the base version.
 */
export function createKeyedQueue () {
  const tails = new Map<string, Promise<unknown>>()
  return function enqueue<T> (key: string, task: () => Promise<T>): Promise<T> {
    const result = (tails.get(key) ?? Promise.resolve()).then(task)
    const tail = result.catch(() => undefined)
    tails.set(key, tail)
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key)
    })
    return result
  }
}

export type KeyedQueue = ReturnType<typeof createKeyedQueue>
