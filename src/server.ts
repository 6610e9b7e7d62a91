import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildApp } from './app.js'
import { appConfigFrom, loadEnvironment, type Environment } from './config.js'
import type { RedisConnection } from './redis/connection.js'
import { startLocalRedis, type LocalRedis } from './redis/local-server.js'

export interface RunningServer {
  app: FastifyInstance
  /** Base URL the service listens on. */
  url: string
  /** Stops taking requests, closes Redis connections, and stops the embedded Redis if any. */
  close (): Promise<void>
}

/**
 * Starts the service. Without REDIS_URL it starts and supervises its own redis-server with RedisJSON,
 * persisting with an append-only file under DATA_DIR/redis, so a restart loses nothing.
 */
export async function startServer (environment: Environment): Promise<RunningServer> {
  let embedded: LocalRedis | undefined
  let connection: RedisConnection
  if (environment.REDIS_URL) {
    connection = { url: environment.REDIS_URL }
  } else {
    embedded = await startLocalRedis({
      dir: join(environment.DATA_DIR, 'redis'),
      persistent: true,
      supervise: true,
      log: (message) => console.error(`jsondocs: ${message}`)
    })
    connection = { socketPath: embedded.socketPath }
  }

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

async function main (): Promise<void> {
  const starting = Promise.resolve().then(() => startServer(loadEnvironment()))
  // Installed before starting: a signal that arrives while Redis or the app is still starting waits for
  // the start to finish, then stops both, rather than killing the process and orphaning its Redis.
  const grace = closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    const server = await starting.catch(() => undefined)
    if (server === undefined) process.exit(1)
    if (err) server.app.log.error({ err }, 'closing after an uncaught error')
    else server.app.log.info(`closing on ${signal}`)
    await server.close()
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
