import { createHash } from 'node:crypto'
import { channel } from 'node:diagnostics_channel'
import type { CommandSender } from './redis.js'
import { ARGUMENT_CURSOR, type ScriptProtocol } from './script-protocol.js'

/**
 * Lua several scripts build on, defined once in the function library rather than run again by every
 * call: its top-level locals are the library's. `reset` runs at the start of each call of a script that
 * uses it, to give the call fresh state (Redis runs one call at a time, so state in those locals is the
 * call's own while it runs).
 */
export interface SharedLua {
  name: string
  source: string
  reset: string
}

export interface LuaScriptOptions {
  shared?: SharedLua
  /** Runs no write command: registered `no-writes`, so Redis runs it when out of memory too. */
  readOnly?: boolean
  /**
   * Reaches keys it was not given as keys, in other hash slots of the node that runs it: registered
   * `allow-cross-slot-keys` (a key of another node still fails the call).
   */
  crossSlot?: boolean
}

/** What the function library makes a function of: a script's name, its Lua and how it is registered. */
export interface LuaUnit {
  readonly name: string
  readonly body: string
  readonly options: LuaScriptOptions
}

/** Every script defined: the service's scripts are module constants, defined once at import. */
const defined: LuaUnit[] = []

/**
 * One of the service's Lua scripts: a function of the service's Redis function library, called with
 * FCALL. Its protocol names its keys and arguments, and its body starts with them as Lua locals.
 */
export class LuaScript<Keys, Args, Reply> implements LuaUnit {
  readonly body: string

  /** name labels the script's calls in metrics: short, and unique among the service's scripts. */
  constructor (readonly name: string, readonly protocol: ScriptProtocol<Keys, Args, Reply>, body: string,
    readonly options: LuaScriptOptions = {}) {
    if (protocol.cursor && !options.shared?.source.startsWith(ARGUMENT_CURSOR)) {
      throw new Error(`Script ${name} reads its arguments in turn: its shared Lua must start with the argument cursor`)
    }
    this.body = protocol.lua + body
    defined.push(this)
  }

  /** The scripts defined so far; once the app is built, every script it may run. */
  static all (): LuaUnit[] {
    return [...defined]
  }

  async run (client: CommandSender, keys: Keys, args: Args): Promise<Reply> {
    const call = this.protocol.encode(keys, args)
    return this.protocol.decode(await currentLibrary().call(client, this, call.keys, call.args))
  }
}

/** A call of one of the service's scripts, as published on scriptCalls once it has ended. */
export interface ScriptCall {
  client: CommandSender
  name: string
  seconds: number
}

/**
 * Every script call, with its duration, while someone listens (the metrics): node-redis' own tracing
 * names an FCALL's function no more than its other arguments.
 */
export const scriptCalls = channel('jsondocs:script-call')

/** Redis' answer to an FCALL of a function it does not hold. */
const NOT_LOADED = /^ERR Function not found/

/**
 * The library of every script defined, as FUNCTION LOAD takes it. Its name, and every function's,
 * carries a digest of its Lua, so that two releases of the service can share a Redis: each calls the
 * functions it was built with.
 */
export class FunctionLibrary {
  readonly name: string
  readonly source: string
  readonly #functionOf = new Map<LuaUnit, string>()
  readonly #scriptOf = new Map<string, LuaUnit>()
  /** The load in progress: calls that find the library missing at once share it, so Redis compiles it once. */
  #loading: Promise<void> | undefined

  /** Any units will do: the service's scripts, or a test's probes of the shared Lua. */
  constructor (readonly scripts: readonly LuaUnit[]) {
    const shared = [...new Set(scripts.flatMap((script) => script.options.shared ? [script.options.shared] : []))]
    const digest = createHash('sha1')
    for (const part of shared) digest.update(part.source).update(part.reset)
    for (const script of scripts) digest.update(script.name).update('\0').update(script.body).update(flagsOf(script.options).join(','))
    this.name = `jsondocs_${digest.digest('hex').slice(0, 12)}`
    const registrations = scripts.map((script) => {
      const functionName = `${this.name}_${script.name.replaceAll('-', '_')}`
      this.#functionOf.set(script, functionName)
      this.#scriptOf.set(functionName, script)
      const flagList = flagsOf(script.options)
      const flags = flagList.length === 0 ? '' : `, flags = { ${flagList.map((flag) => `'${flag}'`).join(', ')} }`
      return `redis.register_function{ function_name = '${functionName}', callback = function(keys, args)
KEYS, ARGV = keys, args
${script.options.shared?.reset ?? ''}
${script.body}
end${flags} }`
    })
    this.source = [`#!lua name=${this.name}`, 'local KEYS, ARGV', ...shared.map((part) => part.source), ...registrations].join('\n')
  }

  /** The script a function of this library is, by the name FCALL gives. */
  scriptNamed (functionName: string): LuaUnit | undefined {
    return this.#scriptOf.get(functionName)
  }

  /** Loads the library into Redis: on a cluster, into every master. */
  async load (client: CommandSender): Promise<void> {
    this.#loading ??= client.send(undefined, ['FUNCTION', 'LOAD', 'REPLACE', this.source]).then(() => {}).finally(() => { this.#loading = undefined })
    await this.#loading
  }

  /**
   * FCALL of the script's function, on the node serving its first key (every key must share that slot);
   * when Redis does not hold the library (a new Redis, FUNCTION FLUSH), loads it first.
   */
  async call<T> (client: CommandSender, script: LuaUnit, keys: readonly string[], args: readonly string[]): Promise<T> {
    const command = ['FCALL', this.#functionOf.get(script)!, String(keys.length), ...keys, ...args]
    if (!scriptCalls.hasSubscribers) return await this.#send<T>(client, keys[0], command)
    const started = performance.now()
    try {
      return await this.#send<T>(client, keys[0], command)
    } finally {
      scriptCalls.publish({ client, name: script.name, seconds: (performance.now() - started) / 1000 } satisfies ScriptCall)
    }
  }

  async #send<T> (client: CommandSender, key: string | undefined, command: string[]): Promise<T> {
    try {
      return await client.send<T>(key, command)
    } catch (error) {
      if (!(error instanceof Error) || !NOT_LOADED.test(error.message)) throw error
      await this.load(client)
      return await client.send<T>(key, command)
    }
  }
}

/** The flags a script is registered with. */
function flagsOf ({ readOnly, crossSlot }: LuaScriptOptions): string[] {
  return [...(readOnly ? ['no-writes'] : []), ...(crossSlot ? ['allow-cross-slot-keys'] : [])]
}

let library: FunctionLibrary | undefined

/** The library of every script defined so far, built again when a script was defined since. */
export function currentLibrary (): FunctionLibrary {
  if (library === undefined || library.scripts.length !== defined.length) library = new FunctionLibrary([...defined])
  return library
}
