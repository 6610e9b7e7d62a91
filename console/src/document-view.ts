/// <reference lib="dom" />
import { button, h } from './dom.js'
import { editor } from './editor.js'
import { jsonTree } from './json-tree.js'
import { describeError } from './problems.js'
import type { Routes } from './api.js'
import type { Session } from './session.js'

function ttlText (ttl: number | null | undefined): string {
  if (ttl === undefined) return '–'
  if (ttl === null) return 'none (kept until deleted)'
  return `${Math.round(ttl)} s`
}

/**
 * One document, kept live through the client's watch: its value as a tree, its ETag and TTL, and the
 * editor. Returns the panel and what stops its watch.
 */
export function documentView (session: Session, routes: Routes, key: string, say: (message: string) => void,
  close: () => void): { element: HTMLElement, stop: () => void } {
  const doc = session.db.doc(key)
  let current: { value: unknown, etag: string | undefined } | undefined
  let editing: ReturnType<typeof editor> | undefined

  // The version is announced as it changes, not the whole value again.
  const etagText = h('dd', { className: 'etag', 'aria-live': 'polite' }, '…')
  const ttl = h('dd', { className: 'ttl' }, '…')
  const body = h('div', { className: 'document-body' }, h('p', {}, 'Loading…'))
  const trouble = h('div')
  const edit = button('Edit', () => startEditing())
  const remove = button('Delete', () => confirmRemove())
  const actions = h('div', { className: 'actions' }, edit, remove)
  const heading = h('h2', { tabindex: -1 }, h('code', {}, key))
  const element = h('article', { className: 'document', 'aria-label': `Document ${key}` },
    h('div', { className: 'document-head' }, heading, h('button', { type: 'button', onclick: close, 'aria-label': `Close ${key}` }, 'Close')),
    h('dl', { className: 'meta' }, h('dt', {}, 'ETag'), etagText, h('dt', {}, 'TTL'), ttl), actions, trouble, body)

  async function refreshTtl (): Promise<void> {
    try { ttl.textContent = ttlText(await routes.ttl(key)) } catch { ttl.textContent = '?' }
  }

  function show (): void {
    if (!current || editing) return
    const absent = current.value === undefined
    body.replaceChildren(absent ? h('p', { className: 'absent' }, 'No document at this key. Edit to create it.') : jsonTree(current.value))
    edit.textContent = absent ? 'Create' : 'Edit'
    remove.hidden = absent
  }

  function startEditing (): void {
    if (!current) return
    say('')
    // Callbacks of an editor closed meanwhile (a save that lands late) leave the current one alone.
    const opened = editor({
      doc,
      saved (etag) { if (leave()) say(`Saved ${key} (ETag ${etag})`) },
      closed () { if (leave()) edit.focus() }
    }, current.value, current.etag)
    const leave = () => {
      if (editing !== opened) return false
      editing = undefined
      actions.hidden = false
      show()
      return true
    }
    editing = opened
    actions.hidden = true
    body.replaceChildren(opened.element)
    opened.element.querySelector('textarea')?.focus()
  }

  function confirmRemove (): void {
    const etag = current?.etag
    const cancel = h('button', { type: 'button', onclick: () => { actions.replaceChildren(edit, remove); remove.focus() } }, 'Cancel')
    const confirm = button(`Delete ${key}`, async () => {
      try {
        await doc.remove(etag === undefined ? {} : { ifMatch: etag })
        say(`Deleted ${key}`)
        actions.replaceChildren(edit, remove)
      } catch (error) {
        trouble.replaceChildren(describeError(error))
      }
    }, { className: 'danger' })
    actions.replaceChildren(h('span', {}, 'Delete this document?'), confirm, cancel)
    confirm.focus()
  }

  const stop = doc.watch((value, change) => {
    current = { value, etag: change.etag }
    etagText.textContent = change.etag ?? '–'
    trouble.replaceChildren()
    if (editing) editing.newer(change.etag)
    show()
    void refreshTtl()
  }, { onError: (error) => trouble.replaceChildren(describeError(error)) })

  queueMicrotask(() => heading.focus())
  return { element, stop }
}
