import type { AccessRule } from '../../access/plugin.js'
import type { Right } from '../../access/scopes.js'
import { documentKeyOf } from '../request.js'

type RouteAccess = { access: AccessRule }

/** A right on the document the route params name, checked before the route runs. */
function onKey (right: Right): RouteAccess {
  return { access: { right, target: documentKeyOf } }
}

/** A right the route checks on each key it meets (batches, listings): the hook asks only that it be held somewhere. */
export function onEachKey (right: Right): RouteAccess {
  return { access: { right } }
}

export const READ_KEY = onKey('read')
export const WRITE_KEY = onKey('write')
