import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { startFlags } from '../../bench/lib/processes.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('the node options the service runs with', () => {
  it('are the same for npm start, the bench and the Docker image', () => {
    const flags = startFlags(root)
    expect(flags).toEqual(expect.arrayContaining(['--min-semi-space-size=8', '--max-semi-space-size=8']))
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8')
    const command = /^CMD (\[.*\])$/m.exec(dockerfile)
    expect(command).not.toBeNull()
    expect(JSON.parse(command![1]!)).toEqual(['node', ...flags, 'dist/server.js'])
  })
})
