import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { testConfig } from '../helpers/app.js'
import { whenDone } from '../helpers/cleanup.js'

/** A logger keeping the messages it is given, as fastify's loggerInstance. */
function recordingLogger () {
  const messages: string[] = []
  const record = (...args: unknown[]) => { messages.push(String(args.find((arg) => typeof arg === 'string') ?? '')) }
  const logger = {
    level: 'info', info: record, error: record, warn: record, fatal: record, debug: record, trace: record, silent: () => {},
    child: () => logger
  }
  return { logger, messages }
}

async function requestLines (logRequests: boolean): Promise<string[]> {
  const { logger, messages } = recordingLogger()
  const app = await buildApp(testConfig({ logRequests }), { logger: logger as never })
  whenDone(() => app.close())
  messages.length = 0
  expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  return messages
}

describe('the access log (LOG_REQUESTS)', () => {
  it('logs each request and its answer when on', async () => {
    expect(await requestLines(true)).toEqual(expect.arrayContaining(['incoming request', 'request completed']))
  })

  it('logs nothing for a successful request when off, the default', async () => {
    expect(await requestLines(false)).toEqual([])
  })
})
