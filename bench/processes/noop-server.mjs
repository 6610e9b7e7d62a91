// The HTTP ceiling: the same fastify, the same logger setting as the service, one route answering a fixed
// small JSON body. Plain JavaScript so it runs on bare node, as the built service does.
import Fastify from 'fastify'
import process from 'node:process'

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } })
const body = '{"ok":true}'
app.get('/noop', async (_request, reply) => reply.type('application/json').send(body))
app.get('/health', async (_request, reply) => reply.type('application/json').send(body))

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
}
