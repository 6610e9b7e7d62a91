import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { buildTestApp, connectRedis, get, overSocket, put, testConfig, uniqueKey } from '../helpers/app.js'
import { startOwnRedis } from '../helpers/local-redis.js'
import { parseMetrics, valueOf, type Sample } from '../helpers/prometheus.js'
import { RawConnection, rawRequest } from '../helpers/raw-http.js'

const TOKEN = 'test-admin-token-0123456789abcdef'
const app = await buildTestApp({ adminToken: TOKEN })

async function scrape (target = app): Promise<Sample[]> {
  const response = await get(target, '/metrics', { authorization: `Bearer ${TOKEN}` })
  expect(response.statusCode).toBe(200)
  return parseMetrics(response.body)
}

const REQUESTS = 'jsondocs_http_request_duration_seconds_count'
const REDIS = 'jsondocs_redis_command_duration_seconds_count'
const requestsOf = (samples: Sample[], route: string, method: string, status: string) =>
  valueOf(samples, REQUESTS, { route, method, status_code: status })

describe('request durations', () => {
  it('count each answer by route pattern, method and status, with a histogram of its time', async () => {
    const key = uniqueKey()
    const before = await scrape()
    await put(app, `/docs/${key}`, { a: 1 })
    await put(app, `/docs/${key}/a`, 2)
    await get(app, `/docs/${key}/a`)
    await get(app, `/docs/${key}/missing`)
    const after = await scrape()
    expect(requestsOf(after, '/docs/:key', 'PUT', '201') - requestsOf(before, '/docs/:key', 'PUT', '201')).toBe(1)
    expect(requestsOf(after, '/docs/:key/*', 'PUT', '200') - requestsOf(before, '/docs/:key/*', 'PUT', '200')).toBe(1)
    expect(requestsOf(after, '/docs/:key/*', 'GET', '200') - requestsOf(before, '/docs/:key/*', 'GET', '200')).toBe(1)
    expect(requestsOf(after, '/docs/:key/*', 'GET', '404') - requestsOf(before, '/docs/:key/*', 'GET', '404')).toBe(1)
    const labels = { route: '/docs/:key', method: 'PUT', status_code: '201' }
    const buckets = after.filter((sample) => sample.name === 'jsondocs_http_request_duration_seconds_bucket' &&
      sample.labels.route === labels.route && sample.labels.method === 'PUT' && sample.labels.status_code === '201')
    expect(buckets.at(-1)).toMatchObject({ labels: { le: '+Inf' }, value: valueOf(after, REQUESTS, labels) })
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value)
    expect(valueOf(after, 'jsondocs_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0)
  })

  it('never take a label from what the client sends: URLs, keys and odd methods make no new series', async () => {
    await get(app, `/docs/${uniqueKey()}`)
    await app.inject({ method: 'PROPFIND', url: '/livez' })
    await get(app, '/nowhere-warmup')
    const seriesBefore = (await scrape()).filter((sample) => sample.name === REQUESTS).length
    const marker = randomUUID()
    for (let i = 0; i < 30; i++) {
      await get(app, `/docs/${marker}-${i}`)
      await get(app, `/${marker}/${i}?q=${marker}`, { 'x-request-id': marker })
      await app.inject({ method: ['PROPFIND', 'LOCK', 'MKCOL'][i % 3] as 'GET', url: '/livez' })
    }
    const after = await scrape()
    expect(after.filter((sample) => sample.name === REQUESTS).length).toBe(seriesBefore)
    expect(after.some((sample) => JSON.stringify(sample).includes(marker))).toBe(false)
    expect(valueOf(after, REQUESTS, { route: 'unmatched', method: 'GET', status_code: '404' })).toBeGreaterThanOrEqual(30)
    expect(valueOf(after, REQUESTS, { route: '/livez', method: 'other', status_code: '405' })).toBeGreaterThanOrEqual(30)
  })

  it('count answered cached reads, HEADs and 304s like any other', async () => {
    const key = uniqueKey()
    const etag = (await put(app, `/docs/${key}`, { a: 1 })).headers.etag as string
    await get(app, `/docs/${key}`)
    const before = await scrape()
    await get(app, `/docs/${key}`)
    await app.inject({ method: 'HEAD', url: `/docs/${key}` })
    await get(app, `/docs/${key}`, { 'if-none-match': etag })
    const after = await scrape()
    expect(requestsOf(after, '/docs/:key', 'GET', '200') - requestsOf(before, '/docs/:key', 'GET', '200')).toBe(1)
    expect(requestsOf(after, '/docs/:key', 'HEAD', '200') - requestsOf(before, '/docs/:key', 'HEAD', '200')).toBe(1)
    expect(requestsOf(after, '/docs/:key', 'GET', '304') - requestsOf(before, '/docs/:key', 'GET', '304')).toBe(1)
  })

  it('count plain GETs over a socket, those the answer cache serves included', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const before = await scrape()
    await overSocket(app, 'GET', `/docs/${key}`)
    await overSocket(app, 'GET', `/docs/${key}`)
    const after = await scrape()
    expect(requestsOf(after, '/docs/:key', 'GET', '200') - requestsOf(before, '/docs/:key', 'GET', '200')).toBe(2)
  })
})

describe('problems, by code and status', () => {
  const problems = (samples: Sample[], code: string) => valueOf(samples, 'jsondocs_problems_total', { code })

  it('counts those fastify sends (401 included, and any status by its code)', async () => {
    const before = await scrape()
    await get(app, '/metrics')
    await get(app, '/metrics', { authorization: 'Bearer wrong-token-wrong-token' })
    await get(app, `/docs/${uniqueKey()}`)
    await get(app, '/docs?limit=0')
    const after = await scrape()
    expect(problems(after, 'DOCS_ERR_UNAUTHORIZED') - problems(before, 'DOCS_ERR_UNAUTHORIZED')).toBe(2)
    expect(problems(after, 'DOCS_ERR_NOT_FOUND') - problems(before, 'DOCS_ERR_NOT_FOUND')).toBe(1)
    expect(problems(after, 'DOCS_ERR_VALIDATION') - problems(before, 'DOCS_ERR_VALIDATION')).toBe(1)
    expect(after.find((sample) => sample.labels.code === 'DOCS_ERR_UNAUTHORIZED')?.labels.status_code).toBe('401')
    expect(requestsOf(after, '/metrics', 'GET', '401') - requestsOf(before, '/metrics', 'GET', '401')).toBe(2)
  })

  it('counts 503s, from the routes (Redis down) and from the HTTP server below them (connection limit)', async () => {
    const redis = await startOwnRedis()
    const limited = await buildTestApp({
      adminToken: TOKEN, redis: { socketPath: redis.socketPath }, redisTimeoutMs: 500, http: { ...testConfig().http, maxConnections: 1 }
    })
    await redis.stop()
    expect((await get(limited, `/docs/${uniqueKey()}`)).statusCode).toBe(503)
    const holder = await RawConnection.open(limited)
    holder.send(rawRequest('PUT', `/docs/${uniqueKey()}`, { 'content-type': 'application/json', 'content-length': '10' }) + '{')
    await expect.poll(() => limited.connections.idle).toBe(0)
    const refused = await RawConnection.open(limited)
    refused.send(rawRequest('GET', '/livez'))
    expect((await refused.responses(1))[0]!.status).toBe(503)
    const samples = await scrape(limited)
    expect(problems(samples, 'DOCS_ERR_REDIS_UNAVAILABLE')).toBe(1)
    expect(problems(samples, 'DOCS_ERR_SERVICE_BUSY')).toBe(1)
    expect(requestsOf(samples, '/docs/:key', 'GET', '503')).toBe(1)
  })
})

describe('Redis call durations', () => {
  it('count each command by name and each script by its name, and nothing of other clients', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    // A script's first call may load the function library first.
    await app.inject({ method: 'GET', url: `/docs/${key}?jsonpath=$.a` })
    const before = await scrape()
    await put(app, `/docs/${key}`, { a: 2 })
    const other = await connectRedis()
    await other.get('some-key')
    await app.inject({ method: 'GET', url: `/docs/${key}?jsonpath=$.a` })
    const after = await scrape()
    expect(valueOf(after, REDIS, { command: 'script:put' }) - valueOf(before, REDIS, { command: 'script:put' })).toBe(1)
    expect(valueOf(after, REDIS, { command: 'script:query' }) - valueOf(before, REDIS, { command: 'script:query' })).toBe(1)
    expect(valueOf(after, REDIS, { command: 'GET' })).toBe(valueOf(before, REDIS, { command: 'GET' }))
    const commands = new Set(after.filter((sample) => sample.name === REDIS).map((sample) => sample.labels.command))
    for (const command of commands) expect(command).toMatch(/^([A-Z.]+|script:[a-z-]+)$/)
  })

  it('count the reads that go to Redis, and not those the client-side cache answers', async () => {
    const cold = await buildTestApp({ adminToken: TOKEN, cacheMaxEntries: 0 })
    const key = uniqueKey()
    await put(cold, `/docs/${key}`, { a: 1 })
    const before = await scrape(cold)
    await get(cold, `/docs/${key}/a`)
    const after = await scrape(cold)
    expect(valueOf(after, REDIS, { command: 'GET' }) - valueOf(before, REDIS, { command: 'GET' })).toBe(1)
    expect(valueOf(after, REDIS, { command: 'JSON.GET' }) - valueOf(before, REDIS, { command: 'JSON.GET' })).toBe(1)
  })
})

describe('the read caches', () => {
  const lookups = (samples: Sample[], cache: string, result: string) => valueOf(samples, 'jsondocs_cache_lookups_total', { cache, result })

  it('count the answer cache\'s hits and misses, and the reply cache\'s', async () => {
    const key = uniqueKey()
    await put(app, `/docs/${key}`, { a: 1 })
    const before = await scrape()
    await get(app, `/docs/${key}`)
    await get(app, `/docs/${key}`)
    await get(app, `/docs/${key}`)
    const after = await scrape()
    expect(lookups(after, 'answers', 'miss') - lookups(before, 'answers', 'miss')).toBe(1)
    expect(lookups(after, 'answers', 'hit') - lookups(before, 'answers', 'hit')).toBe(2)
    expect(lookups(after, 'replies', 'miss') - lookups(before, 'replies', 'miss')).toBeGreaterThanOrEqual(2)
    expect(valueOf(after, 'jsondocs_cache_entries', { cache: 'answers' })).toBeGreaterThanOrEqual(1)
    expect(valueOf(after, 'jsondocs_cache_entries', { cache: 'replies' })).toBeGreaterThanOrEqual(2)
  })
})

describe('the process and the HTTP server', () => {
  it('include prom-client\'s process metrics and the server\'s connections', async () => {
    await overSocket(app, 'GET', '/livez')
    const samples = await scrape()
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes']) {
      expect(samples.some((sample) => sample.name === name), name).toBe(true)
    }
    expect(valueOf(samples, 'jsondocs_http_connections', { state: 'open' })).toBeGreaterThanOrEqual(1)
    expect(valueOf(samples, 'jsondocs_http_uploads', { state: 'waiting' })).toBe(0)
  })
})
