import { describe, expect, it } from 'vitest'
import { rawWildcard } from '../../src/http/raw-wildcard.js'

describe('rawWildcard: the route wildcard as sent, found by the route\'s own segments', () => {
  it.each([
    ['/docs/k/a/b', '/docs/:key/*', 'a/b'],
    ['/docs/k/a%2Fb/c', '/docs/:key/*', 'a%2Fb/c'],
    ['/docs/a%2Fb/c%2Fd', '/docs/:key/*', 'c%2Fd'],
    ['/docs/k/%252F', '/docs/:key/*', '%252F'],
    ['/docs/k/', '/docs/:key/*', ''],
    ['/docs/k//x/', '/docs/:key/*', '/x/'],
    ['/docs/k/a?pointer=/b/c', '/docs/:key/*', 'a'],
    ['/docs/k/a#f/g', '/docs/:key/*', 'a'],
    ['/docs/k/?x', '/docs/:key/*', ''],
    ['/%64ocs/k/a', '/docs/:key/*', 'a'],
    ['/api/v1/docs/k/a/b', '/api/v1/docs/:key/*', 'a/b'],
    ['/api/v%31/d%6Fcs/k%2F/a', '/api/v1/docs/:key/*', 'a'],
    ['/meta/k/x', '/meta/:key/*', 'x']
  ])('%s on %s -> %j', (url, route, raw) => {
    expect(rawWildcard(url, route)).toBe(raw)
  })

  it('is undefined for a route without a wildcard', () => {
    expect(rawWildcard('/docs/k', '/docs/:key')).toBeUndefined()
    expect(rawWildcard('/docs/k?pointer=/a', '/docs/:key')).toBeUndefined()
  })
})
