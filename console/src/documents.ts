/// <reference lib="dom" />
import { button, field, form, h } from './dom.js'
import { documentView } from './document-view.js'
import { describeError } from './problems.js'
import type { Routes } from './api.js'
import type { Session } from './session.js'
import type { View } from './view.js'

/** Keys by prefix, page after page (the listing route), and the document opened from them. */
export function documentsView (session: Session, routes: Routes, say: (message: string) => void, opening?: string): View {
  const prefix = h('input', { type: 'search', name: 'prefix', autocomplete: 'off', placeholder: 'users:' })
  const size = h('input', { type: 'number', name: 'page-size', min: 1, max: 1000, value: 50 })
  const keyInput = h('input', { type: 'text', name: 'key', autocomplete: 'off', required: true, placeholder: 'users:42' })
  const keys = h('ul', { className: 'keys', 'aria-label': 'Keys' })
  const more = h('div')
  const trouble = h('div')
  const panel = h('div', { className: 'document-panel' })
  let cursor: string | null = null
  let listed = ''
  let open: { stop: () => void } | undefined

  function openKey (key: string): void {
    open?.stop()
    const view = documentView(session, routes, key, say, () => { view.stop(); open = undefined; panel.replaceChildren() })
    open = view
    panel.replaceChildren(view.element)
  }

  async function list (from: string | null): Promise<void> {
    trouble.replaceChildren()
    if (from === null) listed = prefix.value
    try {
      const page = await routes.listing(listed, from, Number(size.value) || 50)
      if (from === null) keys.replaceChildren()
      keys.append(...page.keys.sort().map((key) => h('li', {}, h('button', { type: 'button', className: 'link', onclick: () => openKey(key) }, key))))
      cursor = page.cursor
      more.replaceChildren(cursor === null
        ? h('p', { className: 'quiet' }, keys.childElementCount === 0 ? 'No keys.' : 'End of the list.')
        : button('More keys', () => list(cursor)))
    } catch (error) {
      trouble.replaceChildren(describeError(error))
    }
  }

  const element = h('div', { className: 'columns' },
    h('section', { className: 'browse', 'aria-label': 'Browse keys' },
      h('h2', {}, 'Documents'),
      form(() => list(null), { className: 'inline', 'aria-label': 'List keys' }, field('Key prefix', prefix), field('Page size', size), h('button', { type: 'submit' }, 'List')),
      form(() => openKey(keyInput.value), { className: 'inline', 'aria-label': 'Open a key' }, field('Key', keyInput), h('button', { type: 'submit' }, 'Open')),
      trouble, keys, more),
    panel)
  if (opening !== undefined) openKey(opening)
  return { element, stop: () => open?.stop() }
}
