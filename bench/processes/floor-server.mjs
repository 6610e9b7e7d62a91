// The floor of a versioned JSON gateway: the service's fastify and node-redis, on the service's Redis,
// doing the least such a gateway can. A read sends the version GET and one JSON.GET; a write or an
// increment is one script of two commands that also moves the version, so that an ETag stays true; a
// query is one FT.SEARCH answering documents, then one MGET of their versions.
// Nothing is validated, no precondition or schema is checked, and nothing but these routes is served:
// it measures what the stack costs under a gateway, not a product. Plain JavaScript, like the no-op.
import Fastify from 'fastify'
import process from 'node:process'
import { createClient } from 'redis'

const SET = `if redis.call('JSON.SET', KEYS[1], ARGV[1], ARGV[2], 'XX') then return redis.call('INCR', KEYS[2]) end
return false`
const INCREMENT = `local result = redis.call('JSON.NUMINCRBY', KEYS[1], ARGV[1], ARGV[2])
return { redis.call('INCR', KEYS[2]), result }`

const keyPrefix = process.env.KEY_PREFIX ?? ''
const redis = createClient({
  RESP: 3,
  commandOptions: { timeout: 0 },
  ...(process.env.REDIS_SOCKET ? { socket: { path: process.env.REDIS_SOCKET } } : { url: process.env.REDIS_URL })
})
redis.on('error', (error) => process.stderr.write(`floor: ${error.message}\n`))
await redis.connect()
const sha = { set: await redis.scriptLoad(SET), increment: await redis.scriptLoad(INCREMENT) }

/** The document's key and the floor's own version key beside it (the service's records are left alone). */
const keysOf = (key) => [keyPrefix + key, `${keyPrefix}${key}:floor-version`]
const etagOf = (version) => `"${version ?? 0}"`
const pathOf = (request) => request.query.path ?? '.'

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } })
// The body's text, as RedisJSON takes it, and its value, parsed once.
app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
  try {
    done(null, { text, value: JSON.parse(text) })
  } catch (error) {
    error.statusCode = 400
    done(error)
  }
})

app.get('/floor/:key', async (request, reply) => {
  const [doc, version] = keysOf(request.params.key)
  const [current, json] = await Promise.all([
    redis.sendCommand(['GET', version]),
    redis.sendCommand(['JSON.GET', doc, pathOf(request)])
  ])
  if (json === null) return reply.code(404).send()
  return reply.header('etag', etagOf(current)).type('application/json').send(json)
})

app.put('/floor/:key', async (request, reply) => {
  const [doc, version] = keysOf(request.params.key)
  const next = await redis.sendCommand(['EVALSHA', sha.set, '2', doc, version, pathOf(request), request.body.text])
  if (next === null) return reply.code(404).send()
  return reply.header('etag', etagOf(next)).code(204).send()
})

/** One increment, `{"op":"incr","by":n}`, answered as the service answers it: `{"result":n}`. */
app.post('/floor/:key', async (request, reply) => {
  const [doc, version] = keysOf(request.params.key)
  const by = request.body.value?.by
  if (typeof by !== 'number') return reply.code(400).send()
  const [next, result] = await redis.sendCommand(['EVALSHA', sha.increment, '2', doc, version, pathOf(request), String(by)])
  return reply.header('etag', etagOf(next)).type('application/json').send(`{"result":${result}}`)
})

/**
 * A query: one FT.SEARCH of a tag's value (a query parameter) answering its documents, then the floor's
 * versions of those keys, answered as the service answers a page: `{"items":[{"key","etag","value"}]}`.
 */
app.post('/floor-query/:index', async (request, reply) => {
  const { field, value, limit } = request.body.value ?? {}
  if (typeof field !== 'string' || typeof value !== 'string' || !Number.isInteger(limit)) return reply.code(400).send()
  const found = await redis.sendCommand(['FT.SEARCH', keyPrefix + request.params.index, `@${field}:{$v}`, 'RETURN', '1', '$',
    'LIMIT', '0', String(limit), 'PARAMS', '2', 'v', value, 'DIALECT', '2'])
  const results = found.results ?? found.get?.('results') ?? []
  const keys = results.map((result) => result.id ?? result.get('id'))
  const versions = keys.length === 0 ? [] : await redis.sendCommand(['MGET', ...keys.map((key) => `${key}:floor-version`)])
  const items = results.map((result, index) => {
    const attributes = result.extra_attributes ?? result.get('extra_attributes')
    const json = attributes.$ ?? attributes.get('$')
    return `{"key":${JSON.stringify(keys[index].slice(keyPrefix.length))},"etag":${JSON.stringify(etagOf(versions[index]))},"value":${json}}`
  })
  return reply.type('application/json').send(`{"items":[${items.join(',')}]}`)
})

app.get('/health', async (_request, reply) => reply.type('application/json').send('{"ok":true}'))

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    app.close().then(() => redis.close()).then(() => process.exit(0), () => process.exit(1))
  })
}
