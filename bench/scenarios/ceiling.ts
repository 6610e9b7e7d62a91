import type { RowSpec, Scenario } from './scenario.js'

/** Concurrency levels of the no-op sweep; 16 is the level every other row runs at by default. */
export const CEILING_CONNECTIONS = [1, 2, 4, 8, 16, 32, 64]

/** The bare HTTP ceiling: a fastify route answering a fixed small JSON body, nothing behind it. */
export function ceiling (connections = CEILING_CONNECTIONS): Scenario {
  const rows: RowSpec[] = connections.map((c) => ({
    id: `ceiling/noop-c${c}`,
    family: 'ceiling',
    title: 'GET /noop',
    requests: [{ method: 'GET', path: '/noop' }],
    target: 'ceiling',
    connections: c,
    kind: 'read'
  }))
  return { family: 'ceiling', title: 'No-op HTTP ceiling', documents: {}, rows }
}

/**
 * The ceiling at c=16 once more after every other row: how far it moved during the run tells how much
 * the machine's load changed under the measurements.
 */
export function ceilingAgain (): Scenario {
  return {
    family: 'ceiling',
    title: 'No-op HTTP ceiling',
    documents: {},
    rows: [{
      id: 'ceiling/noop-c16-end',
      family: 'ceiling',
      title: 'GET /noop (again, after the other rows)',
      requests: [{ method: 'GET', path: '/noop' }],
      target: 'ceiling',
      connections: 16,
      kind: 'read'
    }]
  }
}
