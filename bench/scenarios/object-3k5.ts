import { webApp } from '../fixtures.js'
import { readRow, writeRow, type Scenario } from './scenario.js'

const family = 'object-3k5'
const key = 'bench:object-3k5'

/** A ~3.5 kB configuration object, read from the root down to one leaf, and that leaf written. */
export function object3k5Scenario (): Scenario {
  const at = (name: string) => ({ family, name, key })
  const servlet = ['web-app', 'servlet']
  return {
    family,
    title: '3.5 kB object',
    documents: { [key]: webApp() },
    rows: [
      readRow(at('get-root'), [], '.'),
      readRow(at('get-servlet'), servlet, '["web-app"].servlet'),
      readRow(at('get-servlet-0'), [...servlet, '0'], '["web-app"].servlet[0]'),
      readRow(at('get-servlet-0-name'), [...servlet, '0', 'servlet-name'], '["web-app"].servlet[0]["servlet-name"]'),
      writeRow(at('set-servlet-0-name'), [...servlet, '0', 'servlet-name'], '"bar"', '["web-app"].servlet[0]["servlet-name"]')
    ]
  }
}
