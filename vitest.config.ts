import { defineConfig } from 'vitest/config'

/**
 * Files that never use the suite's Redis: each starts Redis servers (or a cluster) of its own, to stop,
 * pause, kill, upgrade or slow-log them (the abuse rig). On a cluster run (TEST_REDIS=cluster) they would
 * only repeat the single run, so they run there alone.
 */
const ownRedisOnly = [
  'test/server.test.ts', 'test/server-crashes.test.ts', 'test/workers.test.ts', 'test/upgrade.test.ts',
  'test/redis/local-server.test.ts', 'test/redis/local-cluster.test.ts', 'test/redis/cluster-failover.test.ts',
  'test/redis/connection-watch.test.ts', 'test/redis/availability.test.ts', 'test/redis/probe.test.ts',
  'test/http/health-own-redis.test.ts', 'test/collections/indexes/no-search.test.ts', 'test/abuse/**/*.test.ts'
]

/**
 * Files whose subject is the same whatever Redis answers: connections and timeouts of the HTTP layer, the
 * validation workers' time and memory bounds. The cluster run leaves them out too, to keep CI short.
 */
const sameOnAnyRedis = ['test/http/connections.test.ts', 'test/collections/validation-limits.test.ts']

/** The suite's Redis (each project starts one), and the built client and console, which some tests serve. */
const globalSetup = ['test/setup/redis.ts', 'test/setup/client.ts', 'test/setup/console.ts']
const onCluster = process.env.TEST_REDIS === 'cluster'

/**
 * Two projects. The files of their own Redis start servers, register process signal handlers and pause or
 * kill Redis: each runs in a fresh process. Every other file shares its worker's modules with the files
 * before it (isolate: false), so the service is imported once per worker, not once per file; each of those
 * files builds its own app on a key prefix of its own and closes it when done.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          globalSetup,
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...ownRedisOnly, ...(onCluster ? sameOnAnyRedis : [])],
          isolate: false
        }
      },
      {
        extends: true,
        test: {
          name: 'own',
          globalSetup,
          include: onCluster ? [] : ownRedisOnly,
          exclude: ['**/node_modules/**']
        }
      }
    ]
  }
})
