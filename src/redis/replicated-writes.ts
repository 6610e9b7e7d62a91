import { createClientPool } from 'redis'
import { ReplicationTimeoutError } from '../errors.js'
import { clientOptions, type RedisConnection } from './connection.js'

/** What runs a write: the shared client, or with WRITE_REPLICAS a pool whose writes wait for replicas. */
export interface CommandSender {
  sendCommand<T = unknown> (args: string[]): Promise<T>
}

export interface ReplicatedWritesOptions {
  connection: RedisConnection
  /** Replicas that must hold a write before it is acknowledged. */
  replicas: number
  /** How long WAIT waits for them. */
  timeoutMs: number
  /** Longest wait for a connection to Redis. */
  connectTimeoutMs: number
  /** Writes waiting for replicas at once; more wait for a connection. */
  connections: number
}

/**
 * Writes that wait for replicas (WRITE_REPLICAS): each runs on a connection of its own from a pool, then
 * `WAIT replicas timeout` on that connection, which counts the replicas holding everything the connection
 * wrote. The shared client cannot wait: WAIT blocks its connection, and every read queued behind it.
 * Fewer replicas than asked is ReplicationTimeoutError: the write is on the master, and may be lost in a
 * failover, so its outcome is unknown.
 */
export async function replicatedWrites ({ connection, replicas, timeoutMs, connectTimeoutMs, connections }: ReplicatedWritesOptions) {
  const pool = createClientPool(clientOptions(connection, connectTimeoutMs),
    { minimum: 1, maximum: connections, acquireTimeout: connectTimeoutMs })
  // A connection's errors reach the writes on it, as 503s; the pool's event would only repeat them.
  pool.on('error', () => {})
  await pool.connect()
  const sender: CommandSender = {
    sendCommand: <T>(args: string[]) => pool.execute(async (client) => {
      const reply = await client.sendCommand<T>(args)
      const confirmed = await client.sendCommand<number>(['WAIT', String(replicas), String(timeoutMs)])
      if (confirmed < replicas) throw new ReplicationTimeoutError(confirmed, replicas, timeoutMs)
      return reply
    }) as Promise<T>
  }
  return { sender, close: () => pool.close() }
}
