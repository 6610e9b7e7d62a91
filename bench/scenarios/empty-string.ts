import { emptyString } from '../fixtures.js'
import { readRow, writeRow, type Scenario } from './scenario.js'

const family = 'empty-string'
const key = 'bench:empty'

/** The empty string: the cost of the module and the gateway with next to no payload. */
export function emptyStringScenario (): Scenario {
  return {
    family,
    title: 'Empty string (2 B)',
    documents: { [key]: emptyString() },
    rows: [
      writeRow({ family, name: 'set-root', key }, [], '""', '.'),
      readRow({ family, name: 'get-root', key }, [], '.')
    ]
  }
}
