import { createHash } from 'node:crypto'
import type { CommandSender } from './replicated-writes.js'

/** Every script defined: the service's scripts are module constants, defined once at import. */
const defined = new Set<LuaScript>()
/** The same, by SHA1 and by source: what EVALSHA and EVAL name them by. */
const byShaOrSource = new Map<string, LuaScript>()

/** A Lua script run by SHA (EVALSHA), sent whole only when Redis has not cached it yet. */
export class LuaScript {
  readonly sha: string

  /** name labels the script's calls in metrics: short, and unique among the service's scripts. */
  constructor (readonly name: string, readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex')
    defined.add(this)
    byShaOrSource.set(this.sha, this).set(source, this)
  }

  /** The scripts defined so far; once the app is built, every script it may run. */
  static all (): LuaScript[] {
    return [...defined.values()]
  }

  /** The script an EVALSHA or EVAL names (by SHA1 or source), if the service defined it. */
  static named (shaOrSource: string): LuaScript | undefined {
    return byShaOrSource.get(shaOrSource)
  }

  async run<T> (client: CommandSender, keys: readonly string[], args: readonly string[]): Promise<T> {
    const tail = [String(keys.length), ...keys, ...args]
    try {
      return await client.sendCommand<T>(['EVALSHA', this.sha, ...tail])
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return await client.sendCommand<T>(['EVAL', this.source, ...tail])
    }
  }
}
