import { createHash } from 'node:crypto'
import type { RedisClient } from './plugin.js'

/** A Lua script run by SHA (EVALSHA), sent whole only when Redis has not cached it yet. */
export class LuaScript {
  readonly sha: string

  constructor (readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex')
  }

  async run<T> (client: RedisClient, keys: readonly string[], args: readonly string[]): Promise<T> {
    const tail = [String(keys.length), ...keys, ...args]
    try {
      return await client.sendCommand<T>(['EVALSHA', this.sha, ...tail])
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return await client.sendCommand<T>(['EVAL', this.source, ...tail])
    }
  }
}
