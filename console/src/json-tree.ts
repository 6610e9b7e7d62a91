/// <reference lib="dom" />
import { h } from './dom.js'

/** Containers deeper than this start folded. */
const OPEN_DEPTH = 3

function scalar (value: unknown): HTMLElement {
  const kind = value === null ? 'null' : typeof value
  return h('span', { className: `json-${kind}` }, JSON.stringify(value))
}

function entries (value: object): Array<[string, unknown]> {
  return Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value)
}

function node (label: HTMLElement | null, value: unknown, depth: number): HTMLElement {
  if (value === null || typeof value !== 'object') return h('li', {}, label, scalar(value))
  const members = entries(value)
  const summary = Array.isArray(value) ? `[${members.length}]` : `{${members.length}}`
  if (members.length === 0) return h('li', {}, label, h('span', { className: 'json-empty' }, Array.isArray(value) ? '[]' : '{}'))
  return h('li', {},
    h('details', { open: depth < OPEN_DEPTH },
      h('summary', {}, label, h('span', { className: 'json-count' }, summary)),
      h('ul', {}, ...members.map(([key, item]) => node(h('span', { className: 'json-key' }, Array.isArray(value) ? key : JSON.stringify(key)), item, depth + 1)))))
}

/** A JSON value as a tree people can read: objects and arrays fold (their summaries are keyboard focusable). */
export function jsonTree (value: unknown): HTMLElement {
  return h('ul', { className: 'json-tree', 'aria-label': 'Document value' }, node(null, value, 0))
}
