import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { buildTestApp, get, jsonPatch, operate, patch, put, uniqueKey } from '../helpers/app.js'

const app = await buildTestApp()
const otherInstance = await buildTestApp({ keyPrefix: app.keyPrefix })

const KINDS = ['incr', 'push', 'close', 'unclose', 'reopen', 'negative', 'retype'] as const

const ticketSchema = {
  type: 'object',
  properties: {
    counter: { type: 'integer', minimum: 0, maximum: 50 },
    items: { type: 'array', maxItems: 10 },
    state: { enum: ['open', 'closed'] }
  },
  required: ['counter', 'items', 'state'],
  if: { properties: { state: { const: 'closed' } } },
  then: { required: ['closedAt'] }
}

const WRITERS = 20
const WRITES_EACH = 25

type Outcome = { kind: string, status: number }

/**
 * One writer's mix of valid and invalid partial updates; its choices depend only on its number. Odd
 * writers go through another instance of the service sharing the Redis.
 */
async function writer (url: string, number: number): Promise<Outcome[]> {
  const service = number % 2 === 0 ? app : otherInstance
  const outcomes: Outcome[] = []
  for (let step = 0; step < WRITES_EACH; step++) {
    const kind = KINDS[(number + step * 3) % KINDS.length]!
    const response = await {
      incr: () => operate(service, `${url}/counter`, { op: 'incr', by: 1 }),
      push: () => operate(service, `${url}/items`, { op: 'push', values: [number] }),
      close: () => patch(service, url, { state: 'closed', closedAt: `${number}/${step}` }),
      unclose: () => patch(service, url, { state: 'closed', closedAt: null }),
      reopen: () => patch(service, url, { state: 'open', closedAt: null }),
      negative: () => put(service, `${url}/counter`, -1),
      retype: () => jsonPatch(service, url, [{ op: 'replace', path: '/counter', value: 'many' }])
    }[kind]()
    outcomes.push({ kind, status: response.statusCode })
  }
  return outcomes
}

describe('validated writes under concurrency', () => {
  it(`never let ${WRITERS} concurrent writers store a document that breaks its schema`, async () => {
    const collection = uniqueKey('tickets')
    expect((await put(app, `/schemas/${collection}`, ticketSchema)).statusCode).toBe(201)
    const url = `/docs/${collection}:1`
    expect((await put(app, url, { counter: 0, items: [], state: 'open' })).statusCode).toBe(201)

    const validate = new Ajv2020({ strict: false }).compile(ticketSchema)
    const observed: unknown[] = []
    let writing = true
    const reader = (async () => {
      while (writing) {
        observed.push((await get(app, url)).json())
        // A cached read never waits for I/O: let the writers' replies in.
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const outcomes = (await Promise.all(Array.from({ length: WRITERS }, (_, number) => writer(url, number)))).flat()
    writing = false
    await reader

    const final = (await get(app, url)).json()
    for (const state of [...observed, final]) expect(validate(state), JSON.stringify(state)).toBe(true)
    expect(observed.length).toBeGreaterThan(0)

    const statuses = new Set(outcomes.map((outcome) => outcome.status))
    expect([...statuses].sort()).toEqual([200, 422])
    const succeeded = (kind: string) => outcomes.filter((outcome) => outcome.kind === kind && outcome.status === 200).length
    expect(final.counter).toBe(succeeded('incr'))
    expect(final.items).toHaveLength(succeeded('push'))
    expect(succeeded('negative') + succeeded('retype') + succeeded('unclose')).toBe(0)
    expect(outcomes.filter((outcome) => outcome.kind === 'incr').length).toBeGreaterThan(50)
    expect(final.counter).toBe(50)
    expect(final.items).toHaveLength(10)
  })
})
