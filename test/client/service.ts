import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { BuildOptions } from '../../src/app.js'
import { buildTestApp, type TestOverrides } from '../helpers/app.js'

/** The service on a loopback port, with its open sockets (to cut them), and its base URL. */
export async function listeningApp (overrides: TestOverrides = {}, options: BuildOptions = {}): Promise<{ app: FastifyInstance & { keyPrefix: string }, baseUrl: string, sockets: Set<Socket> }> {
  const app = await buildTestApp(overrides, options)
  const sockets = new Set<Socket>()
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, baseUrl, sockets }
}

/** Polls `check` every 20 ms until it holds, for at most `ms`. */
export async function eventually (check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`Never: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
