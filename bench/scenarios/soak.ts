import { nestedObject } from '../fixtures.js'
import { docPath, type Scenario } from './scenario.js'

const family = 'soak'
const key = 'bench:soak'

/** Mixed small reads and writes for minutes while the service's RSS is sampled. */
export function soakScenario (): Scenario {
  const json = { 'content-type': 'application/json' }
  return {
    family,
    title: 'Memory soak',
    documents: { [key]: nestedObject() },
    rows: [{
      id: 'soak/mixed',
      family,
      title: 'GET sclr, GET root, PUT sclr, POST incr (cycled)',
      requests: [
        { method: 'GET', path: docPath(key, ['sclr']) },
        { method: 'GET', path: docPath(key) },
        { method: 'PUT', path: docPath(key, ['sclr']), body: '2', headers: { ...json, prefer: 'return=minimal' } },
        { method: 'POST', path: docPath(key, ['sub_doc', 'sclr']), body: '{"op":"incr","by":1}', headers: json }
      ],
      target: 'service',
      kind: 'write',
      soak: true
    }]
  }
}
