/// <reference lib="dom" />
import type { DocumentRef } from '../../client/src/index.js'
import { JsondocsError } from '../../client/src/errors.js'
import { button, field, h } from './dom.js'
import { parseJson, type Parsed } from './json-text.js'
import { describeError } from './problems.js'

export interface EditorHost {
  doc: DocumentRef
  /** The save landed, as this version. */
  saved (etag: string): void
  /** The person leaves the editor (cancelled, or took the other version). */
  closed (): void
}

const pretty = (value: unknown) => value === undefined ? '(no document)' : JSON.stringify(value, null, 2)

/**
 * The document as JSON text to edit, checked as it is typed, saved with If-Match on the version the edit
 * started from (or If-None-Match: * for a new document). A save that meets a newer version (412) shows it
 * beside the person's, who keeps theirs (written over the newer version, with its ETag) or takes the other.
 */
export function editor (host: EditorHost, value: unknown, etag: string | undefined): { element: HTMLElement, newer (etag: string | undefined): void } {
  const text = h('textarea', { id: 'editor-text', rows: 16, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'editor-check' })
  text.value = value === undefined ? '{}' : JSON.stringify(value, null, 2)
  const check = h('p', { id: 'editor-check', className: 'check', 'aria-live': 'polite' })
  const outcome = h('div', { className: 'outcome' })
  const notice = h('p', { className: 'notice', 'aria-live': 'polite' })
  const save = h('button', { type: 'button', className: 'primary', onclick: () => { void submit() } }, 'Save')
  const actions = h('div', { className: 'actions' }, save, button('Cancel', () => host.closed()))
  const element = h('section', { className: 'editor', 'aria-label': 'Edit document' },
    field('Document as JSON', text), check, notice, actions, outcome)

  function validate (): Parsed {
    const parsed = parseJson(text.value)
    check.textContent = 'error' in parsed ? `Not JSON: ${parsed.error}` : 'Valid JSON'
    check.className = 'error' in parsed ? 'check invalid' : 'check valid'
    text.setAttribute('aria-invalid', String('error' in parsed))
    save.disabled = 'error' in parsed
    return parsed
  }
  text.addEventListener('input', validate)
  validate()

  async function write (next: unknown, ifMatch: string | undefined): Promise<void> {
    outcome.replaceChildren()
    actions.hidden = false
    try {
      const written = await host.doc.put(next, ifMatch === undefined ? { create: true } : { ifMatch })
      host.saved(written.etag)
    } catch (error) {
      if (error instanceof JsondocsError && error.status === 412) await conflict(next)
      else outcome.replaceChildren(describeError(error))
    }
  }

  async function submit (): Promise<void> {
    const parsed = validate()
    if ('error' in parsed) return
    save.disabled = true
    try { await write(parsed.value, etag) } finally { save.disabled = false }
  }

  async function conflict (mine: unknown): Promise<void> {
    const theirs = await host.doc.get()
    // Saving again from the editor would meet the same newer version: the person chooses first.
    actions.hidden = true
    const heading = h('h3', { tabindex: -1 }, 'Someone else saved this document first')
    outcome.replaceChildren(h('section', { className: 'conflict', 'aria-label': 'Conflict' },
      heading,
      h('p', {}, 'Your save was refused (412): the document changed after you opened it. Choose which version to keep.'),
      h('div', { className: 'versions' },
        h('figure', {}, h('figcaption', {}, 'Yours'), h('pre', { className: 'mine' }, pretty(mine))),
        h('figure', {}, h('figcaption', {}, `Theirs, ETag ${theirs.etag ?? '(deleted)'}`), h('pre', { className: 'theirs' }, pretty(theirs.value)))),
      h('div', { className: 'actions' },
        button('Keep mine', () => write(mine, theirs.etag), { className: 'primary' }),
        button('Take theirs', () => host.closed()))))
    heading.focus()
  }

  return {
    element,
    newer (latest) {
      notice.textContent = latest === etag ? '' : `Someone else saved a newer version (ETag ${latest ?? 'none: deleted'}) while you edit; saving will show both.`
    }
  }
}
