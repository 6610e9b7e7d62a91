import { withDeadline } from './deadline.js'
import type { LuaScript } from './lua-script.js'
import type { RedisClient } from './plugin.js'

/** One thing that keeps the service from serving, and why. */
export interface Unready {
  check: 'redis' | 'json-module' | 'scripts'
  detail: string
}

function messageOf (error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Whether Redis can serve the service, in one round trip of three small commands: PING, `COMMAND INFO
 * JSON.GET` (null without RedisJSON) and `SCRIPT EXISTS` of every script's SHA1. Scripts Redis does not
 * hold (a restart or SCRIPT FLUSH empties its cache) are loaded then, as the next call would have done;
 * one that does not load is not ready. Each step is bounded by timeoutMs. Concurrent checks share the
 * one in progress, so probes cannot pile work on Redis.
 */
export function readinessCheck (client: RedisClient, timeoutMs: number, scripts: () => LuaScript[]): () => Promise<Unready[]> {
  async function check (): Promise<Unready[]> {
    const expected = scripts()
    const [pong, module, exists] = await Promise.allSettled([
      withDeadline(client.ping(), timeoutMs),
      withDeadline(client.sendCommand<unknown[]>(['COMMAND', 'INFO', 'JSON.GET']), timeoutMs),
      withDeadline(client.sendCommand<number[]>(['SCRIPT', 'EXISTS', ...expected.map((script) => script.sha)]), timeoutMs)
    ])
    if (pong.status === 'rejected') return [{ check: 'redis', detail: messageOf(pong.reason) }]
    const unready: Unready[] = []
    if (module.status === 'rejected') unready.push({ check: 'json-module', detail: messageOf(module.reason) })
    else if (!module.value[0]) unready.push({ check: 'json-module', detail: 'Redis has no JSON module (RedisJSON)' })
    if (exists.status === 'rejected') {
      unready.push({ check: 'scripts', detail: messageOf(exists.reason) })
    } else {
      const missing = expected.filter((_script, i) => exists.value[i] !== 1)
      const loads = await Promise.allSettled(missing.map((script) =>
        withDeadline(client.sendCommand(['SCRIPT', 'LOAD', script.source]), timeoutMs)))
      const failed = loads.flatMap((load, i) => load.status === 'rejected' ? [`${missing[i]!.name}: ${messageOf(load.reason)}`] : [])
      if (failed.length > 0) {
        unready.push({ check: 'scripts', detail: `${failed.length} of the service's ${expected.length} scripts did not load (${failed[0]})` })
      }
    }
    return unready
  }

  let running: Promise<Unready[]> | undefined
  return () => running ??= check().finally(() => { running = undefined })
}
