import { tracingChannel } from 'node:diagnostics_channel'
import { scriptCalls, type ScriptCall } from '../redis/lua-script.js'
import type { CommandSender, Redis } from '../redis/redis.js'
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


/**
 * Observes how long each call of this client takes, from the moment node-redis queues it until its
 * reply or failure, by command, through node-redis' own tracing channel (what its OpenTelemetry metrics
 * use), and the service's scripts by name as `script:<name>`, through scriptCalls (writes too, when
 * `writer` waits for replicas on connections of its own). Other clients in the process (the connection
 * check's) are left out. Returns the function that stops observing.
 */
export function observeRedisCalls (client: Redis, writer: CommandSender, durations: SeriesHistogram): () => void {
  const channel = tracingChannel<string, CommandTrace>(COMMAND_CHANNEL)
  const byLabel = new Map<string, Series>()

  function seriesOf (label: string): Series {
    let series = byLabel.get(label)
    if (series !== undefined) return series
    if (byLabel.size >= MAX_COMMAND_LABELS) return durations.series('other')
    series = durations.series(label)
    byLabel.set(label, series)
    return series
  }

  const handlers = {
    start (trace: CommandTrace) {
      if (client.owns(trace.clientId)) trace[STARTED] = performance.now()
    },
    asyncEnd (trace: CommandTrace) {
      const started = trace[STARTED]
      // FCALLs are the scripts', observed below by name.
      if (started !== undefined && trace.command !== 'FCALL') seriesOf(trace.command).observe((performance.now() - started) / 1000)
    },
    end () {},
    asyncStart () {},
    error () {}
  }
  const onScriptCall = (message: unknown) => {
    const { client: sender, name, seconds } = message as ScriptCall
    if (sender === client || sender === writer) seriesOf(`script:${name}`).observe(seconds)
  }
  channel.subscribe(handlers)
  scriptCalls.subscribe(onScriptCall)
  return () => {
    channel.unsubscribe(handlers)
    scriptCalls.unsubscribe(onScriptCall)
  }
}
