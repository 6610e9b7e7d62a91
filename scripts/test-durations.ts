// Writes test/durations.json from the durations vitest keeps of this checkout's runs (its cache in
// node_modules/.vite): the order a fresh clone's first run starts its files in (test/setup/sequencer.ts).
// Run it after a full `npm test` and `TEST_REDIS=cluster npm test`, when files were added or their times moved.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const cacheDir = join(root, 'node_modules/.vite/vitest')
const durations: Record<string, number> = {}
for (const hash of readdirSync(cacheDir)) {
  const { results } = JSON.parse(readFileSync(join(cacheDir, hash, 'results.json'), 'utf8')) as { results: Array<[string, { duration: number }]> }
  for (const [key, { duration }] of results) {
    const file = key.slice(key.indexOf(':') + 1)
    if (file.startsWith('test/') && existsSync(join(root, file))) durations[key] = Math.round(duration / 100) / 10
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)))
writeFileSync(join(root, 'test/durations.json'), JSON.stringify(sorted, null, 2) + '\n')
console.log(`test/durations.json: ${Object.keys(sorted).length} files`)
