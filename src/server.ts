import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import cluster from 'node:cluster'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildApp } from './app.js'
import { appConfigFrom, loadEnvironment, type Environment } from './config.js'
import { clusterNodesOf, type RedisConnection } from './redis/connection.js'
import { startLocalRedis, type LocalRedis } from './redis/local-server.js'
import { startWorkers, WORKER_REDIS_SOCKET } from './workers.js'

export interface RunningServer {
  app: FastifyInstance
  /** Base URL the service listens on. */
  url: string
  /** Stops taking requests, closes Redis connections, and stops the embedded Redis if any. */
  close (): Promise<void>
}

/** Without REDIS_URL or REDIS_CLUSTER_NODES, the embedded Redis: started and supervised here, or, in a worker, the primary's. */
async function redisFor (environment: Environment): Promise<{ connection: RedisConnection, embedded?: LocalRedis }> {
  if (environment.REDIS_URL) return { connection: { url: environment.REDIS_URL } }
  if (environment.REDIS_CLUSTER_NODES) return { connection: { clusterNodes: clusterNodesOf(environment.REDIS_CLUSTER_NODES)! } }
  const primarySocket = cluster.isWorker ? process.env[WORKER_REDIS_SOCKET] : undefined
  if (primarySocket) return { connection: { socketPath: primarySocket } }
  const embedded = await startLocalRedis({
    dir: join(environment.DATA_DIR, 'redis'),
    persistent: true,
    supervise: true,
    log: (message) => console.error(`jsondocs: ${message}`)
  })
  return { connection: { socketPath: embedded.socketPath }, embedded }
}

/**
 * Starts the service. Without REDIS_URL it starts and supervises its own redis-server with RedisJSON,
 * persisting with an append-only file under DATA_DIR/redis, so a restart loses nothing.
 */
export async function startServer (environment: Environment): Promise<RunningServer> {
  const { connection, embedded } = await redisFor(environment)

  let app: FastifyInstance
  try {
    app = await buildApp(appConfigFrom(environment, connection))
  } catch (error) {
    await embedded?.stop()
    throw error
  }
  let url: string
  try {
    url = await app.listen({ host: environment.HOST, port: environment.PORT })
  } catch (error) {
    await app.close()
    await embedded?.stop()
    throw error
  }
  return {
    app,
    url,
    async close () {
      await app.close()
      await embedded?.stop()
    }
  }
}

/** Something main() started: one service, or the primary of WORKERS services. */
interface Started {
  info: (message: string) => void
  error: (error: Error, message: string) => void
  close (): Promise<void>
}

/** WORKERS > 1, in the primary: the embedded Redis (if any) here, the services in the workers. */
async function startPrimary (environment: Environment): Promise<Started> {
  const log = (message: string) => console.error(`jsondocs: ${message}`)
  const { embedded } = await redisFor(environment)
  try {
    const env: Record<string, string> = embedded === undefined ? {} : { [WORKER_REDIS_SOCKET]: embedded.socketPath }
    const workers = await startWorkers(environment.WORKERS, env, log)
    log(`${environment.WORKERS} workers listening at ${workers.url}`)
    return {
      info: log,
      error: (error, message) => log(`${message}: ${error.stack ?? error.message}`),
      async close () {
        await workers.close()
        await embedded?.stop()
      }
    }
  } catch (error) {
    await embedded?.stop()
    throw error
  }
}

async function startOne (environment: Environment): Promise<Started> {
  const server = await startServer(environment)
  const { log } = server.app
  return { info: (message) => log.info(message), error: (err, message) => log.error({ err }, message), close: () => server.close() }
}

/** How long closing may take (requests finishing, connections closing, Redis flushing) before the process exits with status 1. */
const CLOSE_GRACE_MS = 10_000

/** Closes what was started within CLOSE_GRACE_MS; logs why it could not, and throws (close-with-grace then exits with 1). */
async function closeWithin (started: Started): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`closing took longer than ${CLOSE_GRACE_MS} ms`)), CLOSE_GRACE_MS)
  })
  try {
    await Promise.race([started.close(), late])
  } catch (error) {
    started.error(error as Error, 'could not close')
    throw error
  } finally {
    clearTimeout(timer)
  }
}

async function main (): Promise<void> {
  const starting = Promise.resolve().then(() => {
    const environment = loadEnvironment()
    return cluster.isPrimary && environment.WORKERS > 1 ? startPrimary(environment) : startOne(environment)
  })
  // Installed before starting: a signal that arrives while Redis or the app is still starting waits for
  // the start to finish (each of its steps is bounded), then stops both, rather than killing the process
  // and orphaning its Redis. The grace for closing counts from then, so a slow start does not spend it.
  const grace = closeWithGrace({ delay: null }, async ({ signal, err }) => {
    const started = await starting.catch(() => undefined)
    if (started === undefined) process.exit(1)
    if (err) started.error(err, 'closing after an uncaught error')
    else started.info(`closing on ${signal}`)
    await closeWithin(started)
  })
  try {
    await starting
  } catch (error) {
    grace.uninstall()
    console.error(`jsondocs could not start: ${(error as Error).message}`)
    process.exitCode = 1
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main()
}
