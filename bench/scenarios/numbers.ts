import { operationRow, type Scenario } from './scenario.js'

const family = 'numbers'
const INCR_KEY = 'bench:num-incr'
const MULT_KEY = 'bench:num-mult'

/**
 * Increment and multiply. The multiplier is -1, not RedisJSON's 2: doubling for seconds overflows the
 * double range, which the service rightly refuses with 409, and a row must not fail by design.
 */
export function numbersScenario (): Scenario {
  return {
    family,
    title: 'Numbers',
    documents: { [INCR_KEY]: 0, [MULT_KEY]: 1 },
    rows: [
      operationRow({ family, name: 'incr', key: INCR_KEY }, { op: 'incr', by: 1 }, ['JSON.NUMINCRBY', '.', '1']),
      operationRow({ family, name: 'mult', key: MULT_KEY }, { op: 'mult', by: -1 }, ['JSON.NUMMULTBY', '.', '-1'])
    ]
  }
}
