import { once } from 'node:events'
import { createServer } from 'node:net'

/** A TCP port free on 127.0.0.1 at the time of asking (a test binds it a moment later). */
export async function freePort (): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}

/** Where the nodes' ports start: below the ephemeral ports (32768 up), as their buses, 10,000 above, mostly are. */
const CLUSTER_PORTS_FROM = 20_000
/** Ports each test worker has for cluster nodes; the band of none (the suite's own cluster, scripts) is the first. */
const CLUSTER_BAND = 1000
let nextClusterPort = 0

/**
 * A TCP port for a node of a local Redis Cluster, free on 127.0.0.1 with its cluster bus port (10,000
 * above). Each test worker (VITEST_POOL_ID) takes them from a band of its own and never hands one out
 * twice. A port freePort hands out may have just been a killed node's: its cluster, still running in a
 * file beside, then reached the new node on it and gossiped its own nodes into the new cluster, which
 * never formed.
 */
export async function clusterPort (): Promise<number> {
  const band = Number(process.env['VITEST_POOL_ID'] ?? 0) % 10
  while (nextClusterPort < CLUSTER_BAND) {
    const port = CLUSTER_PORTS_FROM + band * CLUSTER_BAND + nextClusterPort++
    if (await isFree(port) && await isFree(port + 10_000)) return port
  }
  throw new Error(`no free port left in this worker's band of ${CLUSTER_BAND} for cluster nodes`)
}

async function isFree (port: number): Promise<boolean> {
  const server = createServer()
  try {
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    return true
  } catch {
    return false
  } finally {
    server.close()
  }
}
