import type { RedisClient } from '../../src/redis/plugin.js'
import { versionKeyOf } from '../helpers/app.js'

/** More keys than this in the rig's Redis is a leak of the suite itself (cases delete their own keys). */
const MAX_KEYS = 20_000

/**
 * Every key of the Redis with a hash of its type, value and expiry: SCAN, then DUMP (the type and the
 * value in Redis' own serialisation, RedisJSON's included) and PEXPIRETIME, hashed inside Redis so that
 * one round trip carries the whole keyspace. Bounded by MAX_KEYS.
 */
const FINGERPRINT_SCRIPT = `
local cursor, out, count = '0', {}, 0
repeat
  local page = redis.call('SCAN', cursor, 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do
    count = count + 1
    if count > tonumber(ARGV[1]) then return redis.error_reply('more than ' .. ARGV[1] .. ' keys') end
    local dump = redis.call('DUMP', key) or ''
    out[#out + 1] = key
    out[#out + 1] = redis.sha1hex(dump .. '|' .. redis.call('PEXPIRETIME', key))
  end
until cursor == '0'
return out
`

export class Fingerprint {
  constructor (readonly hashes: ReadonlyMap<string, string>) {}

  /** The fingerprint of these keys alone. */
  only (keys: ReadonlySet<string>): Fingerprint {
    return new Fingerprint(new Map([...this.hashes].filter(([key]) => keys.has(key))))
  }

  /** The fingerprint of every key but these. */
  without (keys: ReadonlySet<string>): Fingerprint {
    return new Fingerprint(new Map([...this.hashes].filter(([key]) => !keys.has(key))))
  }

  /** What differs from an earlier fingerprint: keys added, removed or changed, named. */
  changesFrom (earlier: Fingerprint): string[] {
    const changes: string[] = []
    for (const [key, hash] of this.hashes) {
      const was = earlier.hashes.get(key)
      if (was === undefined) changes.push(`added ${JSON.stringify(key)}`)
      else if (was !== hash) changes.push(`changed ${JSON.stringify(key)}`)
    }
    for (const key of earlier.hashes.keys()) if (!this.hashes.has(key)) changes.push(`removed ${JSON.stringify(key)}`)
    return changes
  }
}

export async function fingerprint (redis: RedisClient): Promise<Fingerprint> {
  const flat = await redis.sendCommand<string[]>(['EVAL', FINGERPRINT_SCRIPT, '0', String(MAX_KEYS)])
  const hashes = new Map<string, string>()
  for (let index = 0; index < flat.length; index += 2) hashes.set(flat[index]!, flat[index + 1]!)
  return new Fingerprint(hashes)
}

/**
 * Keys a request must never touch, seeded before the cases: outside the namespace, keys of every type
 * near it (the prefix without its colon, the bare prefix, what a `..` or an unescaped glob would reach);
 * inside it, documents of other clients whose keys are near misses of hostile ones (the empty key, a
 * version record's suffix, percent-encoded and dotted forms, the collection separator).
 */
export function sentinelKeys (prefix: string): string[] {
  return [...outsideSentinels(prefix).map(([key]) => key), ...NEIGHBOURS.map((key) => prefix + key)]
}

/** Near-miss document keys, inside the namespace; each a JSON document with a version record. */
const NEIGHBOURS = ['a', 'a:b', 'a/b', '%2F', '..', '.', '*', '?', '[a]', '\\', 'x y', 'neighbour', 'users:1', 'é']

function outsideSentinels (prefix: string): Array<[key: string, command: string[]]> {
  const bare = prefix.slice(0, -1)
  return [
    ['jsondocs:a', ['JSON.SET', 'jsondocs:a', '$', '{"outside":true}']],
    [bare, ['SET', bare, 'the prefix without its colon']],
    [`${bare}a`, ['JSON.SET', `${bare}a`, '$', '{"outside":"no colon"}']],
    ['abuse:', ['HSET', 'abuse:', 'field', 'value']],
    ['', ['SET', '', 'the empty key']],
    ['a', ['JSON.SET', 'a', '$', '[1,2,3]']],
    ['\u001fversion', ['SET', '\u001fversion', '7']],
    ['list', ['RPUSH', 'list', 'a', 'b']],
    ['set', ['SADD', 'set', 'a', 'b']],
    ['zset', ['ZADD', 'zset', '1', 'a']],
    ['stream', ['XADD', 'stream', '1-1', 'field', 'value']],
    ['expiring', ['SET', 'expiring', 'value', 'EX', '86400']]
  ]
}

/** Seeds the sentinels (again, when a case took one of them as its own). */
export async function sentinels (redis: RedisClient, prefix: string): Promise<void> {
  const commands = outsideSentinels(prefix).map(([, command]) => command)
  for (const key of NEIGHBOURS) {
    commands.push(['JSON.SET', prefix + key, '$', JSON.stringify({ neighbour: key, list: [1, 2, 3] })])
    commands.push(['SET', versionKeyOf(prefix, key), '1:'])
  }
  const multi = redis.multi().del(sentinelKeys(prefix))
  for (const command of commands) multi.addCommand(command)
  await multi.exec()
}
