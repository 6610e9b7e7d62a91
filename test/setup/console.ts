import { buildConsole } from '../../scripts/build-console.js'

/** The console, built before any test serves it (when missing or older than its sources). */
export default async function setup () {
  await buildConsole()
}
