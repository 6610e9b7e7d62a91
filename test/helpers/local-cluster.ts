import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'
import { provisionedBinaries } from '../../src/redis/local-server.js'
import { whenDone } from './cleanup.js'
import { eventually } from './local-redis.js'
import { freePort } from './ports.js'
import { provisionLocalRedis } from './provision.js'

import { SLOTS } from '../../src/redis/slots.js'

export interface LocalCluster {
  /** host:port of every master, as REDIS_CLUSTER_NODES takes them. */
  nodes: string[]
}

/**
 * A Redis Cluster of `masters` redis-server processes of the provisioned Redis 8, each with the JSON and
 * Search modules, on loopback TCP ports, each master owning an equal range of slots; formed with CLUSTER
 * ADDSLOTSRANGE and CLUSTER MEET (no redis-cli needed), and stopped when the test file ends.
 */
export async function startLocalCluster (masters = 3): Promise<LocalCluster> {
  provisionLocalRedis()
  const dir = mkdtempSync(join(tmpdir(), 'jsondocs-cluster-'))
  whenDone(() => rmSync(dir, { recursive: true, force: true }))
  const ports: number[] = []
  for (let index = 0; index < masters; index++) {
    const port = await freePort()
    const nodeDir = join(dir, String(port))
    const child = spawn(provisionedBinaries.server, [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--cluster-enabled', 'yes',
      '--cluster-config-file', `${nodeDir}.conf`, '--save', '', '--appendonly', 'no', '--loglevel', 'warning',
      ...provisionedBinaries.modules.flatMap((module) => ['--loadmodule', module])
    ], { stdio: 'ignore' })
    whenDone(() => { child.kill('SIGKILL') })
    ports.push(port)
  }
  const clients = await Promise.all(ports.map(async (port) => {
    const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false } })
    await eventually(async () => client.connect().then(() => true, () => false))
    whenDone(() => client.destroy())
    return client
  }))
  const share = Math.ceil(SLOTS / masters)
  await Promise.all(clients.map((client, index) =>
    client.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', String(index * share), String(Math.min(SLOTS, (index + 1) * share) - 1)])))
  for (const port of ports.slice(1)) await clients[0]!.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(port)])
  await eventually(async () => {
    const states = await Promise.all(clients.map((client) => client.sendCommand<string>(['CLUSTER', 'INFO'])))
    return states.every((info) => /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${masters}\\b`).test(info))
  }, 20_000)
  return { nodes: ports.map((port) => `127.0.0.1:${port}`) }
}
