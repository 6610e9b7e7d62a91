import { describe, expect, it, vi } from 'vitest'
import { cpuMsOf, redisPid } from '../helpers/service-process.js'
import { BUSY_BOUND_MS } from './busy.js'
import { withKnownFindings } from './known-findings.js'
import { documentKeys, runCase, startRig } from './rig.js'
import { inject, seedDocument, type HostileRequest } from './send.js'

/**
 * The costliest requests the default limits allow, each sent once against documents at the size limit
 * and checked like every abuse case, the busy bound first: what one request may cost Redis.
 */
const rig = await startRig()

const MiB = 1024 * 1024
/** An array of zeros as long as a document may be: half a million elements. */
const zeros = (bytes: number) => `[${'0,'.repeat(Math.floor(bytes / 2) - 1)}0]`
/** An array of empty objects about as long as a document may be: a third of a million values to allocate and free. */
const empties = (bytes: number) => `[${'{},'.repeat(Math.floor(bytes / 3) - 1)}{}]`
const repeat = (count: number, item: string) => `[${Array(count).fill(item).join(',')}]`

interface WorstCase {
  name: string
  /** The document `doc` holds before the request, written through the service (so it has its size bound). */
  document?: string
  request: HostileRequest
  /**
   * A finding: the request held Redis past the bound, or close enough to it to fail on a loaded machine
   * (reported, with its figures; runs with ABUSE_KNOWN_FINDINGS=1).
   */
  known?: boolean
}

const json = { 'content-type': 'application/json' }
const jsonPatch = { 'content-type': 'application/json-patch+json' }

/*
 * Figures on the 2-core machine, three runs (the longest one command held Redis): PUT of a third of a
 * million empty objects 41, 132 and 24 ms; over half a million elements, JSONPath $..* 172, 118 and
 * 70 ms, a filter 219, 111 and 94 ms; JSON Patch of 1000 adds at the front 208, 340 and 170 ms, of 1000
 * removes 216, 180 and 161 ms; 100 inserts of 1000 values at the front 11.4 s and 5.7 s; a merge patch
 * of 50 000 members 83, 87 and 53 ms; a batch of 1000 documents 1.3 s, 1.1 s and, once main tracked
 * keys by prefix (BCAST), 50 ms. The others stay under 10 ms, the 1000 tests under 60.
 */

const cases: WorstCase[] = [
  { name: 'PUT of a document of a third of a million empty objects', known: true, request: { method: 'PUT', url: '/docs/doc', body: empties(MiB - 16), headers: json } },
  { name: 'PUT replacing such a document', document: empties(MiB - 16), request: { method: 'PUT', url: '/docs/doc', body: '{}', headers: json } },
  { name: 'DELETE of such a document', document: empties(MiB - 16), request: { method: 'DELETE', url: '/docs/doc' } },
  { name: 'GET of such a document', document: empties(MiB - 16), request: { method: 'GET', url: '/docs/doc' } },
  { name: '/meta of such a document', document: empties(MiB - 16), request: { method: 'GET', url: '/meta/doc' } },
  { name: 'JSONPath $..* over half a million elements', document: zeros(MiB - 16), request: { method: 'GET', url: '/docs/doc?jsonpath=%24..*' } },
  { name: 'JSONPath filter over half a million elements', document: zeros(MiB - 16), request: { method: 'GET', url: '/docs/doc?jsonpath=%24%5B%3F%40%3E0%5D' } },
  {
    name: 'JSON Patch adding 1000 elements at the front of half a million',
    document: zeros(MiB - 4096),
    request: { method: 'PATCH', url: '/docs/doc', body: repeat(1000, '{"op":"add","path":"/0","value":1}'), headers: jsonPatch }
  },
  {
    name: 'JSON Patch removing 1000 elements from the front of half a million',
    document: zeros(MiB - 16),
    request: { method: 'PATCH', url: '/docs/doc', body: repeat(1000, '{"op":"remove","path":"/0"}'), headers: jsonPatch }
  },
  {
    name: 'JSON Patch of 1000 tests of the whole document',
    document: zeros(MiB / 4),
    request: { method: 'PATCH', url: '/docs/doc', body: repeat(1000, '{"op":"test","path":"/1","value":0}'), headers: jsonPatch }
  },
  {
    name: '100 operations popping the front of half a million elements',
    document: zeros(MiB - 16),
    request: { method: 'POST', url: '/docs/doc', body: repeat(100, '{"op":"pop","index":0}'), headers: json }
  },
  {
    name: '100 operations inserting 1000 values at the front of an array',
    document: zeros(MiB / 2),
    request: { method: 'POST', url: '/docs/doc', body: repeat(100, `{"op":"insert","index":0,"values":${repeat(1000, '0')}}`), headers: json }
  },
  {
    name: 'a batch writing 1000 documents of 1 KB',
    request: {
      method: 'POST',
      url: '/batch/write',
      body: `{"items":${JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ key: `batch${i}`, value: { text: 'x'.repeat(1000) } })))}}`,
      headers: json
    }
  },
  {
    name: 'a merge patch of 50 000 members',
    document: '{}',
    request: { method: 'PATCH', url: '/docs/doc', body: `{${Array.from({ length: 50_000 }, (_, i) => `"m${i}":${i}`).join(',')}}`, headers: { 'content-type': 'application/merge-patch+json' } }
  }
]

describe('the costliest requests within the default limits hold Redis within the bound', () => {
  for (const { name, document, request, known } of cases) {
    it.skipIf(known === true && !withKnownFindings)(name, async () => {
      if (document !== undefined) expect(await seedDocument(rig, 'doc', document)).toBe(true)
      const own = request.url.startsWith('/batch/write')
        ? Array.from({ length: 1000 }, (_, i) => documentKeys(rig, `batch${i}`)).flat()
        : documentKeys(rig, 'doc')
      const { answer, busyMs } = await runCase(rig, name, own, () => inject(rig, request))
      console.log(`${name}: ${answer.statusCode}, Redis held ${busyMs.toFixed(1)} ms at most by one command`)
    }, 60_000)
  }
})

describe('the busy bound', () => {
  /** A script that keeps Redis busy until it has spent ms of CPU time (os.clock is the process's CPU time). */
  const busyFor = (ms: number) => `local started = os.clock() while os.clock() - started < ${ms / 1000} do end return 1`
  const noContent = { statusCode: 204, headers: {}, body: '' }

  async function otherClient () {
    const client = rig.redis.duplicate()
    await client.connect()
    return client
  }

  it('fails a case where one command kept Redis busy past it', async () => {
    const client = await otherClient()
    try {
      await expect(runCase(rig, 'a script busy for 400 ms of CPU time', [], async () => {
        await client.eval(busyFor(400))
        return noContent
      })).rejects.toThrow(/was held \d+(\.\d+)? ms by one command/)
    } finally {
      client.destroy()
    }
  })

  it('passes a case whose command was held past it by the machine, with little CPU time behind it', async () => {
    const client = await otherClient()
    const pid = await redisPid(rig.redis)
    try {
      // Redis stopped mid-command for 400 ms, as a loaded machine's scheduler may leave it: once the
      // script has run 20 ms of its 150 (nothing else runs on the rig's Redis meanwhile).
      const { busyMs } = await runCase(rig, 'a script held by a stopped Redis', [], async () => {
        const before = cpuMsOf(pid)!
        const running = client.eval(busyFor(150))
        await vi.waitFor(() => { if (cpuMsOf(pid)! - before < 20) throw new Error('the script has not started') }, { timeout: 5000, interval: 2 })
        process.kill(pid, 'SIGSTOP')
        await new Promise((resolve) => setTimeout(resolve, 400))
        process.kill(pid, 'SIGCONT')
        await running
        return noContent
      })
      expect(busyMs).toBeGreaterThan(BUSY_BOUND_MS)
    } finally {
      process.kill(pid, 'SIGCONT')
      client.destroy()
    }
  })
})
