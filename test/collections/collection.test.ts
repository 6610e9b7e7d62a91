import { describe, expect, it } from 'vitest'
import { checkCollectionName, collectionOf } from '../../src/collections/collection.js'

describe('collectionOf', () => {
  it.each([
    ['users:42', ':', 'users'],
    ['users:42:extra', ':', 'users'],
    ['users', ':', undefined],
    [':42', ':', undefined],
    ['users::42', ':', 'users'],
    ['a/b:c', '/', 'a'],
    ['orders--7', '--', 'orders'],
    ['ünï:1', ':', 'ünï']
  ])('%j with separator %j is in %j', (key, separator, expected) => {
    expect(collectionOf(key, separator)).toBe(expected)
  })
})

describe('checkCollectionName', () => {
  it.each([
    ['users', undefined],
    ['', 'The collection name is empty'],
    ['a:b', 'The collection name contains the separator ":"'],
    ['a\u0001b', 'The collection name contains a control character']
  ])('%j: %j', (name, problem) => {
    expect(checkCollectionName(name, ':')).toBe(problem)
  })
})
