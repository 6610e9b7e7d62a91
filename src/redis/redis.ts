import type { BoundedClientSideCache } from './cache.js'

/** What runs commands: one Redis, a Redis Cluster, or (WRITE_REPLICAS) writes that wait for replicas. */
export interface CommandSender {
  /**
   * Sends a command to the node serving `key`'s hash slot, where every key the command names must be
   * (they share the slot). A command naming no key passes undefined and goes to any node.
   */
  send<T = unknown> (key: string | undefined, args: readonly string[]): Promise<T>
}

/** One master of the Redis, to SCAN it. Its id finds it again on any instance: '' for a single Redis. */
export interface MasterNode {
  id: string
  sender: CommandSender
}

/** The shape of Redis the service talks to, whether one server or a cluster. */
export interface Redis extends CommandSender {
  readonly isCluster: boolean
  /** node-redis' client-side cache, when on. */
  readonly cache: BoundedClientSideCache | undefined
  /** GET and JSON.GET as typed commands, the only ones the client-side cache serves; replies as Redis sends them. */
  get (key: string): Promise<string | null>
  jsonGet (key: string, path: string): Promise<string | null>
  ping (): Promise<unknown>
  /** Every master, in the order of their ids (the lowest slot each serves). */
  masters (): Promise<MasterNode[]>
  /** The master that holds the keys of the master with this id, if any. */
  master (id: string): Promise<MasterNode | undefined>
  /** Whether a node-redis client (by its id) is one of this Redis' connections. */
  owns (clientId: string): boolean
  /** Closes the connections, once what was sent is answered. */
  close (): Promise<void>
}

/** The part of a node-redis client the service uses. */
interface NodeClient {
  sendCommand<T> (args: readonly string[]): Promise<T>
}

/** A sender that names no routing: everything it sends goes to the one node it has. */
export function nodeSender (client: NodeClient): CommandSender {
  return { send: <T>(_key: string | undefined, args: readonly string[]) => client.sendCommand<T>(args) }
}
