import { createClientPool, createCluster } from 'redis'
import { RedisUnavailableError, ReplicationTimeoutError } from '../errors.js'
import { clientOptions, clusterOptions, type RedisConnection } from './connection.js'
import type { CommandSender } from './redis.js'

export interface ReplicatedWritesOptions {
  connection: RedisConnection
  /** Replicas that must hold a write before it is acknowledged. */
  replicas: number
  /** How long WAIT waits for them. */
  timeoutMs: number
  /** Longest wait for a connection to Redis. */
  commandTimeoutMs: number
}

/** Writes that wait for replicas use a connection each: at most this many wait at once (per master, on a cluster). */
const CONNECTIONS = 32
/** On a cluster, each of these holds a connection to every master. */
const CLUSTER_CONNECTIONS = 8

interface Waiting {
  /**
   * Runs work with a connection of its own where key's slot is served: `write` sends the write, `wait` then
   * WAIT on the connection that carried it.
   */
  withConnection<T> (key: string | undefined, work: (write: Send, wait: Send) => Promise<T>): Promise<T>
  close (): Promise<void>
}

type Send = <R>(args: readonly string[]) => Promise<R>

/**
 * Writes that wait for replicas (WRITE_REPLICAS): each runs on a connection of its own, then
 * `WAIT replicas timeout` on that connection, which counts the replicas holding everything the connection
 * wrote. The shared client cannot wait: WAIT blocks its connection, and every read queued behind it.
 * Fewer replicas than asked is ReplicationTimeoutError: the write is on the master, and may be lost in a
 * failover, so its outcome is unknown.
 */
export async function replicatedWrites ({ connection, replicas, timeoutMs, commandTimeoutMs }: ReplicatedWritesOptions) {
  const waiting = 'clusterNodes' in connection
    ? await clusterConnections(connection, commandTimeoutMs)
    : await poolConnections(connection, commandTimeoutMs)
  const sender: CommandSender = {
    send: <T>(key: string | undefined, args: readonly string[]) => waiting.withConnection(key, async (write, wait) => {
      const reply = await write<T>(args)
      const confirmed = await wait<number>(['WAIT', String(replicas), String(timeoutMs)])
      if (confirmed < replicas) throw new ReplicationTimeoutError(confirmed, replicas, timeoutMs)
      return reply
    })
  }
  return { sender, close: () => waiting.close() }
}

async function poolConnections (connection: RedisConnection, connectTimeoutMs: number): Promise<Waiting> {
  const pool = createClientPool(clientOptions(connection, connectTimeoutMs),
    { minimum: 1, maximum: CONNECTIONS, acquireTimeout: connectTimeoutMs })
  // A connection's errors reach the writes on it, as 503s; the pool's event would only repeat them.
  pool.on('error', () => {})
  await pool.connect()
  return {
    withConnection: (_key, work) => pool.execute((client) => {
      const send: Send = (args) => client.sendCommand([...args])
      return work(send, send)
    }),
    close: () => pool.close()
  }
}

/**
 * Cluster clients of their own, each lent to one write at a time: its connection to the write's master
 * carries the write (node-redis follows redirections), then WAIT. Should the slot have moved to another
 * master meanwhile (a failover), nothing tells which master the write reached: its outcome is unknown.
 */
async function clusterConnections (connection: RedisConnection & { clusterNodes: string[] }, connectTimeoutMs: number): Promise<Waiting> {
  const clusters = await Promise.all(Array.from({ length: CLUSTER_CONNECTIONS }, async () => {
    const cluster = createCluster(clusterOptions(connection, connectTimeoutMs))
    cluster.on('node-error', () => {})
    return await cluster.connect()
  }))
  const idle = [...clusters]
  const queue: Array<() => void> = []
  return {
    async withConnection (key, work) {
      while (idle.length === 0) await new Promise<void>((resolve) => queue.push(resolve))
      const cluster = idle.pop()!
      try {
        const routing = key ?? ''
        const before = await cluster.getNodeClientForKey(routing)
        return await work((args) => cluster.sendCommand(routing, false, [...args]), async (args) => {
          const after = await cluster.getNodeClientForKey(routing)
          if (after !== before) throw new RedisUnavailableError('its slot moved to another master during the write, whose outcome is unknown')
          return await after.sendCommand([...args])
        })
      } finally {
        idle.push(cluster)
        queue.shift()?.()
      }
    },
    async close () {
      await Promise.all(clusters.map((cluster) => cluster.close().catch(() => cluster.destroy())))
    }
  }
}
