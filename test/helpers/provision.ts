import { execFileSync } from 'node:child_process'
import { join } from 'node:path'

/** Provisions redis-server and RedisJSON into .redis/ (once; later calls return at once). */
export function provisionLocalRedis (stdio: 'ignore' | 'inherit' = 'ignore'): void {
  execFileSync('bash', [join(import.meta.dirname, '../../scripts/provision-redis.sh')], { stdio })
}
