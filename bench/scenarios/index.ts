import { array1k4Scenario } from './array-1k4.js'
import { cachedReadsScenario } from './cached-reads.js'
import { ceiling, ceilingAgain } from './ceiling.js'
import { emptyStringScenario } from './empty-string.js'
import { floorScenario } from './floor.js'
import { largeDocsScenario } from './large-docs.js'
import { numbersScenario } from './numbers.js'
import { object380bScenario } from './object-380b.js'
import { object3k5Scenario } from './object-3k5.js'
import { queriesScenario } from './queries.js'
import type { Scenario } from './scenario.js'
import { sizeSweepScenario } from './size-sweep.js'
import { soakScenario } from './soak.js'

/** Every workload family, in the order a run measures them; a smoke run's fixtures are small. */
export function allScenarios ({ smoke = false }: { smoke?: boolean } = {}): Scenario[] {
  return [
    ceiling(),
    emptyStringScenario(),
    object380bScenario(),
    array1k4Scenario(),
    object3k5Scenario(),
    largeDocsScenario(),
    numbersScenario(),
    floorScenario(),
    sizeSweepScenario(),
    cachedReadsScenario(),
    queriesScenario(smoke ? 2000 : undefined),
    soakScenario(),
    ceilingAgain()
  ]
}
