import { describe, expect, it } from 'vitest'
import { ADMIN, listingReach, parseScopes, reaches, reachesCollection, type Access, type Scope } from '../../src/access/scopes.js'

const scoped = (...scopes: Scope[]): Access => ({ kind: 'scoped', scopes, credential: 'token' })
const user = scoped({ prefix: 'users:42:', rights: ['read', 'write'] }, { prefix: 'a:1', rights: ['read'] })

describe('reaches', () => {
  it.each([
    ['users:42:profile', 'read', true],
    ['users:42:', 'write', true],
    ['users:42', 'read', false],
    ['users:420:profile', 'read', false],
    ['users:4', 'read', false],
    ['Users:42:profile', 'read', false],
    ['users:42:profile', 'schema', false],
    // a:1 has no boundary: it reaches a:10 and a:1x too, as documented.
    ['a:1', 'read', true],
    ['a:10', 'read', true],
    ['a:1:x', 'read', true],
    ['a:2', 'read', false],
    ['a:10', 'write', false]
  ] as const)('%s for %s: %s', (key, right, expected) => {
    expect(reaches(user, right, key)).toBe(expected)
  })

  it('the admin reaches everything', () => {
    expect(reaches(ADMIN, 'schema', 'anything')).toBe(true)
  })
})

describe('reachesCollection', () => {
  const editor = scoped({ prefix: 'users:', rights: ['schema'] }, { prefix: 'o', rights: ['schema'] }, { prefix: 'teams:1:', rights: ['schema'] })
  it.each([
    ['users', true], ['user', false], ['users2', false], ['orders', true], ['o', true], ['teams', false], ['x', false]
  ] as const)('%s: %s', (collection, expected) => {
    expect(reachesCollection(editor, collection, ':')).toBe(expected)
  })
})

describe('listingReach', () => {
  it.each([
    ['users:42:', 'all'], ['users:42:x', 'all'], ['users:', ['users:42:']], ['', ['users:42:', 'a:1']], ['a:', ['a:1']],
    ['users:420', 'none'], ['users:43:', 'none'], ['b', 'none']
  ] as const)('prefix %j: %j', (prefix, expected) => {
    expect(listingReach(user, prefix)).toEqual(expected)
  })
})

describe('parseScopes', () => {
  it('reads a list of scopes, removing repeated rights', () => {
    expect(parseScopes('[{"prefix":"p:","rights":["read","read","write"]}]', 'S')).toEqual([{ prefix: 'p:', rights: ['read', 'write'] }])
  })

  it.each(['{', '{}', '[{"prefix":"p"}]', '[{"prefix":"p","rights":[]}]', '[{"prefix":"p","rights":["all"]}]',
    '[{"prefix":1,"rights":["read"]}]', '[{"prefix":"p","rights":["read"],"extra":1}]', '[{"prefix":"p\\u0000","rights":["read"]}]'])(
    'refuses %s, naming the setting', (text) => {
      expect(() => parseScopes(text, 'AUTH_X')).toThrow(/AUTH_X/)
    })
})
