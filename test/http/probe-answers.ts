import { expect } from 'vitest'
import type { get } from '../helpers/app.js'

type Answer = Awaited<ReturnType<typeof get>>

export function expectOk (response: Answer) {
  expect(response.statusCode).toBe(200)
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  expect(response.headers['cache-control']).toBe('no-store')
  expect(response.json()).toEqual({ status: 'ok' })
}

export function expectUnready (response: Answer, code: string, checks: string[]) {
  expect(response.statusCode).toBe(503)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(response.headers['cache-control']).toBe('no-store')
  expect(response.headers['retry-after']).toBe('1')
  const problem = response.json()
  expect(problem).toMatchObject({ code, status: 503 })
  expect(problem.unready.map((item: { check: string }) => item.check)).toEqual(checks)
  return problem
}
