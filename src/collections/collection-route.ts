import type { FastifyRequest } from 'fastify'
import type { AccessRule } from '../access/plugin.js'
import { BadRequestError } from '../errors.js'
import { checkCollectionName } from './collection.js'

export interface CollectionParams { collection: string }

/** What the routes of a collection (`/schemas/{c}`, `/collections/{c}/...`) share: their access rule and their checked name. */
export function collectionRoute (separator: string) {
  return {
    /** A collection's schema and index are reachable when `collection + separator` starts with a `schema` scope's prefix. */
    onCollection: {
      access: { right: 'schema', target: (request: FastifyRequest) => (request.params as CollectionParams).collection + separator } as AccessRule
    },
    /** The collection the route params name; 400 when no collection can have that name. */
    collectionOf (request: FastifyRequest<{ Params: CollectionParams }>): string {
      const { collection } = request.params
      const problem = checkCollectionName(collection, separator)
      if (problem) throw new BadRequestError(problem)
      return collection
    }
  }
}
