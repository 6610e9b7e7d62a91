/// <reference lib="dom" />
import { JsondocsError } from '../../client/src/errors.js'
import { h } from './dom.js'

interface Place { in?: string, pointer?: string, detail?: string }

/**
 * What went wrong, for a person: a problem's title and detail, and each place it names (validation errors,
 * schema violations); any other error's message.
 */
export function describeError (error: unknown): HTMLElement {
  if (!(error instanceof JsondocsError)) {
    return h('div', { className: 'problem', role: 'alert' }, h('strong', {}, 'Error'), ' ', error instanceof Error ? error.message : String(error))
  }
  const places = (error.problem as { errors?: Place[] }).errors ?? []
  return h('div', { className: 'problem', role: 'alert' },
    h('strong', {}, `${error.status} ${error.title}`), ' ', h('span', {}, error.detail),
    places.length === 0
      ? null
      : h('ul', {}, ...places.slice(0, 20).map((place) =>
        h('li', {}, h('code', {}, place.pointer === undefined || place.pointer === '' ? '(whole)' : place.pointer), ' ', place.detail ?? ''))))
}

/** Whether the error is the service's 404 (nothing there). */
export function isNotFound (error: unknown): boolean {
  return error instanceof JsondocsError && error.status === 404
}
