import { join } from 'node:path'

/** wrk and Webdis as scripts/provision-bench-tools.sh unpacks them, with the libraries they load. */
export function benchTools (root: string) {
  const base = join(root, '.tools/debian')
  return {
    wrk: join(base, 'usr/bin/wrk'),
    webdis: join(base, 'usr/bin/webdis'),
    env: { ...process.env, LD_LIBRARY_PATH: join(base, 'usr/lib/x86_64-linux-gnu') }
  }
}
