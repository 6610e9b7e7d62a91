import { buildClient } from '../../scripts/build-client.js'

/** The browser and Node client, built before any test imports or serves it (when missing or older than its sources). */
export default async function setup () {
  await buildClient()
}
