import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import type { RedisConnection } from '../../src/redis/connection.js'
import { startLocalRedis } from '../../src/redis/local-server.js'
import { launchLocalCluster } from '../helpers/local-cluster.js'
import { provisionLocalRedis } from '../helpers/provision.js'

declare module 'vitest' {
  export interface ProvidedContext {
    redis: RedisConnection
  }
}

interface FoundRedis {
  connection: RedisConnection
  description: string
  stop (): Promise<void>
}

/**
 * The suite's Redis, real and with RedisJSON: REDIS_URL when given; else redis:8 through
 * testcontainers where a Docker engine answers; else a local redis-server the project provisions.
 */
export default async function setup (project: TestProject) {
  const redis = await findRedis()
  console.log(`tests use ${redis.description}`)
  project.provide('redis', redis.connection)
  return () => redis.stop()
}

async function findRedis (): Promise<FoundRedis> {
  if (process.env.TEST_REDIS === 'cluster') return startCluster()
  const url = process.env.REDIS_URL
  if (url) return { connection: { url }, description: `REDIS_URL (${url})`, stop: async () => {} }
  if (process.env.DOCKER_HOST || existsSync('/var/run/docker.sock')) {
    try {
      return await startContainer()
    } catch (error) {
      console.warn(`no Redis container (${(error as Error).message}); using a local redis-server`)
    }
  }
  return startLocal()
}

async function startContainer (): Promise<FoundRedis> {
  const { GenericContainer, Wait } = await import('testcontainers')
  const container = await new GenericContainer('redis:8')
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .start()
  const url = `redis://${container.getHost()}:${container.getMappedPort(6379)}`
  return { connection: { url }, description: `redis:8 in a container (${url})`, stop: async () => { await container.stop() } }
}

/** TEST_REDIS=cluster: a local Redis Cluster of 3 masters, each with a replica. */
async function startCluster (): Promise<FoundRedis> {
  const cluster = await launchLocalCluster({ masters: 3, replicas: 1 })
  return {
    connection: { clusterNodes: cluster.nodes.map((node) => `redis://${node}`) },
    description: `a local Redis Cluster of 3 masters with a replica each (${cluster.nodes.join(', ')})`,
    stop: () => cluster.stop()
  }
}

async function startLocal (): Promise<FoundRedis> {
  provisionLocalRedis('inherit')
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-test-'))
  const redis = await startLocalRedis({ dir, persistent: false })
  return {
    connection: { socketPath: redis.socketPath },
    description: `a local redis-server with RedisJSON (${redis.socketPath})`,
    stop: async () => {
      await redis.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
