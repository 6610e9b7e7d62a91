/**
 * `npm run cluster`: a local Redis Cluster of the provisioned Redis 8 (3 masters, each with a replica, JSON
 * and Search loaded), in the foreground until Ctrl-C, for trying the service on a cluster:
 * `REDIS_CLUSTER_NODES=<the line it prints> npm start`. Nothing is written to disk that outlives it.
 * Options: --masters N (default 3), --replicas N (default 1).
 */
import { parseArgs } from 'node:util'
import { launchLocalCluster } from '../test/helpers/local-cluster.js'

const { values } = parseArgs({ options: { masters: { type: 'string', default: '3' }, replicas: { type: 'string', default: '1' } } })
const masters = Number(values.masters)
const replicas = Number(values.replicas)
if (!Number.isInteger(masters) || masters < 1 || masters > 16 || !Number.isInteger(replicas) || replicas < 0 || replicas > 4) {
  console.error('--masters takes 1 to 16, --replicas 0 to 4')
  process.exit(2)
}

const cluster = await launchLocalCluster({ masters, replicas })
console.log(`REDIS_CLUSTER_NODES=${cluster.nodes.join(',')}`)
console.error(`a local Redis Cluster: ${masters} masters, ${replicas} replica(s) each; Ctrl-C stops it`)
let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  void cluster.stop().then(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
