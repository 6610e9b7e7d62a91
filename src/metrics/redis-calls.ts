import { tracingChannel } from 'node:diagnostics_channel'
import { LuaScript } from '../redis/lua-script.js'
import type { RedisClient } from '../redis/plugin.js'
import type { Series, SeriesHistogram } from './histogram.js'

/** node-redis' tracing channel: every command a client sends, from its start until its reply. */
const COMMAND_CHANNEL = 'node-redis:command'

/** Distinct `command` labels kept; past it, `other`. The service's own code names them all, far fewer. */
const MAX_COMMAND_LABELS = 64

const STARTED = Symbol('started')

/** What node-redis publishes of each command (its CommandTraceContext), and when it started. */
interface CommandTrace {
  command: string
  args: readonly string[]
  clientId: string
  [STARTED]?: number
}

/** A command's label: its name, or `script:<name>` for the service's scripts, whichever way they are sent. */
function commandLabel ({ command, args }: CommandTrace): string {
  if (command !== 'EVALSHA' && command !== 'EVAL') return command
  return `script:${LuaScript.named(args[1] ?? '')?.name ?? 'other'}`
}

/**
 * Observes how long each call of this client takes, from the moment node-redis queues it until its
 * reply or failure, by command or script name, through node-redis' own tracing channel (what its
 * OpenTelemetry metrics use). Other clients in the process (the connection check's) are left out.
 * Returns the function that stops observing.
 */
export function observeRedisCalls (client: RedisClient, durations: SeriesHistogram): () => void {
  const channel = tracingChannel<string, CommandTrace>(COMMAND_CHANNEL)
  const clientId = client._clientId
  const byLabel = new Map<string, Series>()

  function seriesOf (trace: CommandTrace): Series {
    const label = commandLabel(trace)
    let series = byLabel.get(label)
    if (series !== undefined) return series
    if (byLabel.size >= MAX_COMMAND_LABELS) return durations.series('other')
    series = durations.series(label)
    byLabel.set(label, series)
    return series
  }

  const handlers = {
    start (trace: CommandTrace) {
      if (trace.clientId === clientId) trace[STARTED] = performance.now()
    },
    asyncEnd (trace: CommandTrace) {
      const started = trace[STARTED]
      if (started !== undefined) seriesOf(trace).observe((performance.now() - started) / 1000)
    },
    end () {},
    asyncStart () {},
    error () {}
  }
  channel.subscribe(handlers)
  return () => channel.unsubscribe(handlers)
}
