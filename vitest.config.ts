import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { DurationSequencer } from './test/setup/sequencer.js'

/**
 * Files that never use the suite's Redis: each starts Redis servers (or a cluster) of its own, to stop,
 * pause, kill, upgrade or slow-log them (the abuse rig). On a cluster run (TEST_REDIS=cluster) they would
 * only repeat the single run, so they run there alone.
 */
const ownRedisOnly = [
  'test/server.test.ts', 'test/server-crashes.test.ts', 'test/workers.test.ts', 'test/upgrade.test.ts',
  'test/redis/local-server.test.ts', 'test/redis/local-cluster.test.ts', 'test/redis/cluster-failover.test.ts',
  'test/redis/connection-watch.test.ts', 'test/redis/held-redis.test.ts', 'test/redis/availability.test.ts', 'test/redis/probe.test.ts',
  'test/http/health-own-redis.test.ts', 'test/collections/indexes/no-search.test.ts', 'test/abuse/**/*.test.ts'
]

/**
 * Files whose subject is the same whatever Redis answers: connections and timeouts of the HTTP layer, the
 * validation workers' time and memory bounds. The cluster run leaves them out too, to keep CI short.
 */
const sameOnAnyRedis = ['test/http/connections.test.ts', 'test/collections/validation-limits.test.ts']

/**
 * Files on the suite's Redis whose assertions bound time (validation and schema compilation deadlines, a script's Redis CPU, HTTP
 * timeouts, replication waits) or read what the whole Redis counts: they run one at a time, with the files
 * of their own Redis, once the parallel files are done, so that no other file competes for the cores.
 */
const alone = [
  'test/collections/validation-limits.test.ts', 'test/collections/validation.test.ts', 'test/collections/registry.test.ts',
  'test/collections/patterns.test.ts',
  'test/documents/batch.test.ts', 'test/redis/replicated-writes.test.ts', 'test/http/connections.test.ts'
]

const onCluster = process.env.TEST_REDIS === 'cluster'

/**
 * Workers running the files on the suite's Redis at once (TEST_WORKERS): at least three on one Redis, even
 * on two cores, since much of their time is spent waiting on Redis, sockets and timers (on two cores: 236 s
 * against 262 s with two); at least two on a cluster, whose six Redis servers take a core's worth of the
 * machine (three were slower there, and pushed an index rebuild past its test's timeout).
 */
const workers = Number(process.env.TEST_WORKERS) || Math.max(onCluster ? 2 : 3, availableParallelism() - 1)
/**
 * Workers running the files that start servers of their own: at least three, since much of their time is
 * spent waiting on the servers they start, stop and pause (on two cores: 81-83 s against 96 s with two,
 * 87 s with four).
 */
const ownWorkers = Math.max(3, availableParallelism() - 1)

/**
 * The suite's Redis (each project starts one); the built client and console, which some tests serve; the
 * service compiled to JavaScript, which tests start as a process; and the Chromium the browser tests drive.
 */
const globalSetup = ['test/setup/redis.ts', 'test/setup/client.ts', 'test/setup/console.ts', 'test/setup/service.ts', 'test/setup/browser.ts']

/**
 * Three projects. Every file shares its worker's modules with the files before it (isolate: false), so the
 * service is imported once per worker, not once per file (importing it took a third of the run when each
 * file had its own). Each file builds its apps on key prefixes or servers of its own and closes them when
 * done, so that `workers` of them run at once. The files that must not run beside the shared ones come
 * after them: 'alone' one at a time (groupOrder 1), then 'own' (each on servers of its own, which nothing
 * else touches, started, paused or killed as it needs) `ownWorkers` at once (groupOrder 2).
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Longest files first, on a fresh clone too (test/durations.json).
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          globalSetup,
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...ownRedisOnly, ...alone, ...(onCluster ? sameOnAnyRedis : [])],
          isolate: false,
          maxWorkers: workers
        }
      },
      {
        extends: true,
        test: {
          name: 'alone',
          globalSetup,
          include: alone,
          exclude: ['**/node_modules/**', ...(onCluster ? sameOnAnyRedis : [])],
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 1 }
        }
      },
      {
        extends: true,
        test: {
          name: 'own',
          globalSetup,
          include: onCluster ? [] : ownRedisOnly,
          exclude: ['**/node_modules/**'],
          isolate: false,
          maxWorkers: ownWorkers,
          sequence: { groupOrder: 2 }
        }
      }
    ]
  }
})
