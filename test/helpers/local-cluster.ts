import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'
import { provisionedBinaries } from '../../src/redis/local-server.js'
import { SLOTS } from '../../src/redis/slots.js'
import { whenDone } from './cleanup.js'
import { eventually } from './local-redis.js'
import { clusterPort } from './ports.js'
import { provisionLocalRedis } from './provision.js'

export interface ClusterNode {
  port: number
  process: ChildProcess
  /** The port of its master, for a replica. */
  replicaOf?: number
}

export interface LocalCluster {
  /** host:port of every master, as REDIS_CLUSTER_NODES takes them. */
  nodes: string[]
  /** Every redis-server: the masters, then their replicas. */
  servers: ClusterNode[]
  stop (): Promise<void>
}

export interface LocalClusterOptions {
  masters?: number
  /** Replicas of each master. */
  replicas?: number
  /** cluster-node-timeout: how long a master may be unreachable before its replica takes over. */
  nodeTimeoutMs?: number
}

/**
 * A Redis Cluster of redis-server processes of the provisioned Redis 8, each with the JSON and Search
 * modules, on loopback TCP ports, each master owning an equal range of slots; formed with CLUSTER
 * ADDSLOTSRANGE, CLUSTER MEET and CLUSTER REPLICATE (no redis-cli needed). Replicas write nothing to disk.
 */
export async function launchLocalCluster ({ masters = 3, replicas = 0, nodeTimeoutMs = 2000 }: LocalClusterOptions = {}): Promise<LocalCluster> {
  provisionLocalRedis()
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-cluster-'))
  const servers: ClusterNode[] = []
  const stop = async () => {
    for (const server of servers) server.process.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let index = 0; index < masters * (1 + replicas); index++) {
      const port = await clusterPort()
      const child = spawn(provisionedBinaries.server, [
        '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--cluster-enabled', 'yes',
        '--cluster-config-file', `${port}.conf`, '--cluster-node-timeout', String(nodeTimeoutMs), '--save', '',
        '--appendonly', 'no', '--loglevel', 'warning', '--enable-debug-command', 'local',
        // A master waits 5 s by default before a diskless sync, for more replicas to come: these have one each.
        '--repl-diskless-sync-delay', '0',
        ...provisionedBinaries.modules.flatMap((module) => ['--loadmodule', module])
      ], { stdio: 'ignore' })
      servers.push({ port, process: child, ...(index >= masters ? { replicaOf: servers[(index - masters) % masters]!.port } : {}) })
    }
    const clients = await Promise.all(servers.map(async ({ port }) => {
      const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false } })
      await eventually(async () => client.connect().then(() => true, () => false))
      return client
    }))
    try {
      const share = Math.ceil(SLOTS / masters)
      await Promise.all(clients.slice(0, masters).map((client, index) =>
        client.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', String(index * share), String(Math.min(SLOTS, (index + 1) * share) - 1)])))
      for (const { port } of servers.slice(1)) await clients[0]!.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(port)])
      let states: string[] = []
      await eventually(async () => {
        states = await Promise.all(clients.map((client) => client.sendCommand<string>(['CLUSTER', 'INFO'])))
        return states.every((info) => /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${servers.length}\\b`).test(info))
      }, 20_000).catch((error: Error) => {
        const seen = states.map((info, index) => `${servers[index]!.port}: ${info.match(/cluster_state:\w+|cluster_known_nodes:\d+|cluster_slots_fail:\d+/g)?.join(' ')}`)
        throw new Error(`${error.message}: the cluster did not form (${seen.join('; ')})`)
      })
      const ids = await Promise.all(clients.map((client) => client.sendCommand<string>(['CLUSTER', 'MYID'])))
      await Promise.all(servers.map(async (server, index) => {
        if (server.replicaOf === undefined) return
        const master = servers.findIndex(({ port }) => port === server.replicaOf)
        await eventually(async () => clients[index]!.sendCommand(['CLUSTER', 'REPLICATE', ids[master]!]).then(() => true, () => false), 20_000)
      }))
      await eventually(async () => {
        const roles = await Promise.all(clients.slice(masters).map((client) => client.sendCommand<string>(['INFO', 'replication'])))
        return roles.every((info) => /master_link_status:up/.test(info))
      }, 20_000)
    } finally {
      for (const client of clients) client.destroy()
    }
    return { nodes: servers.slice(0, masters).map(({ port }) => `127.0.0.1:${port}`), servers, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** A local cluster (launchLocalCluster), stopped when the test file ends. */
export async function startLocalCluster (masters = 3, options: Omit<LocalClusterOptions, 'masters'> = {}): Promise<LocalCluster> {
  const cluster = await launchLocalCluster({ masters, ...options })
  whenDone(() => cluster.stop())
  return cluster
}
