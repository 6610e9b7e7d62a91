import { checkKey } from '../documents/pointer.js'

/** The collection a document key belongs to: what precedes the first separator, if anything does. */
export function collectionOf (key: string, separator: string): string | undefined {
  const at = key.indexOf(separator)
  return at > 0 ? key.slice(0, at) : undefined
}

/** Why a name cannot be a collection's, or undefined when it can. */
export function checkCollectionName (name: string, separator: string): string | undefined {
  const problem = checkKey(name)
  if (problem) return problem.replace('The key', 'The collection name')
  if (name.includes(separator)) return `The collection name contains the separator "${separator}"`
  return undefined
}
