/// <reference lib="dom" />
import { button, field, form, h } from './dom.js'
import { parseJson } from './json-text.js'
import { describeError } from './problems.js'
import type { IndexState, Routes, SchemaRegistration } from './api.js'
import type { View } from './view.js'

/** How often a building index's progress is asked for. */
const PROGRESS_EVERY_MS = 1000

const pretty = (value: unknown) => JSON.stringify(value, null, 2)

/** A JSON text area with its check, and the value it holds once valid. */
function jsonArea (caption: string, id: string) {
  const text = h('textarea', { id, rows: 10, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': `${id}-check` })
  const check = h('p', { id: `${id}-check`, className: 'check', 'aria-live': 'polite' })
  const read = () => {
    const parsed = parseJson(text.value)
    check.textContent = 'error' in parsed ? `Not JSON: ${parsed.error}` : ''
    check.className = 'error' in parsed ? 'check invalid' : 'check'
    return parsed
  }
  text.addEventListener('input', read)
  return { text, element: h('div', {}, field(caption, text), check), read }
}

/** A collection's schema and index: view, replace, and the index's build progress. */
export function collectionsView (routes: Routes, say: (message: string) => void): View {
  const name = h('input', { type: 'text', name: 'collection', required: true, autocomplete: 'off', placeholder: 'orders' })
  const known = h('ul', { className: 'keys', 'aria-label': 'Collections with a schema' })
  const panel = h('div', { className: 'collection', hidden: true })
  const trouble = h('div')
  let timer: ReturnType<typeof setTimeout> | undefined
  const stop = () => clearTimeout(timer)

  async function listCollections (): Promise<void> {
    try {
      const collections = await routes.collections()
      known.replaceChildren(...collections.map(({ collection }) =>
        h('li', {}, h('button', { type: 'button', className: 'link', onclick: () => { name.value = collection; void open() } }, collection))))
    } catch (error) {
      trouble.replaceChildren(describeError(error))
    }
  }

  async function open (): Promise<void> {
    stop()
    trouble.replaceChildren()
    const collection = name.value
    try {
      const [schema, index] = await Promise.all([routes.schema(collection), routes.index(collection)])
      panel.replaceChildren(schemaSection(collection, schema), indexSection(collection, index))
      panel.hidden = false
    } catch (error) {
      trouble.replaceChildren(describeError(error))
    }
  }

  function schemaSection (collection: string, found: { schema: unknown, etag: string | undefined } | undefined): HTMLElement {
    let etag = found?.etag
    const area = jsonArea('Schema (JSON Schema 2020-12)', 'schema-text')
    area.text.value = found === undefined ? pretty({ type: 'object' }) : pretty(found.schema)
    const state = h('p', {}, found === undefined ? 'No schema yet.' : `ETag ${etag}`)
    const outcome = h('div', { 'aria-live': 'polite' })
    const replace = async () => {
      const parsed = area.read()
      if ('error' in parsed) return
      outcome.replaceChildren()
      try {
        const registered: SchemaRegistration = await routes.putSchema(collection, parsed.value, etag)
        etag = registered.etag
        state.textContent = `ETag ${etag}`
        const { checked, violating, complete } = registered.existingDocuments
        outcome.replaceChildren(h('p', {}, `Schema saved. Existing documents: ${checked} checked, ${violating} violating${complete ? '' : ' (not all checked)'}.`))
        say(`Schema of ${collection} saved`)
        void listCollections()
      } catch (error) {
        outcome.replaceChildren(describeError(error))
      }
    }
    return h('section', { 'aria-label': 'Schema' }, h('h3', {}, `Schema of ${collection}`), state, area.element,
      h('div', { className: 'actions' }, button(found === undefined ? 'Save schema' : 'Replace schema', replace, { className: 'primary' })), outcome)
  }

  function indexSection (collection: string, found: IndexState | undefined): HTMLElement {
    const area = jsonArea('Index definition', 'index-text')
    area.text.value = pretty({ fields: found?.fields ?? [{ pointer: '/status', type: 'tag' }] })
    const progress = h('progress', { max: 1, value: found?.progress ?? 0 })
    const state = h('p', { 'aria-live': 'polite' })
    const outcome = h('div')
    const showState = (index: IndexState | undefined) => {
      progress.value = index?.progress ?? 0
      state.textContent = index === undefined
        ? 'No index yet.'
        : `${index.state === 'ready' ? 'Ready' : `Building: ${Math.round(index.progress * 100)}%`}, ${index.documents} documents, ${index.failures} failures`
      if (index?.state === 'building') timer = setTimeout(() => { void poll() }, PROGRESS_EVERY_MS)
    }
    const poll = async () => {
      try { showState(await routes.index(collection)) } catch (error) { outcome.replaceChildren(describeError(error)) }
    }
    const replace = async () => {
      const parsed = area.read()
      if ('error' in parsed) return
      stop()
      outcome.replaceChildren()
      try {
        showState(await routes.putIndex(collection, parsed.value))
        say(`Index of ${collection} saved`)
      } catch (error) {
        outcome.replaceChildren(describeError(error))
      }
    }
    showState(found)
    return h('section', { 'aria-label': 'Index' }, h('h3', {}, `Index of ${collection}`),
      h('label', { className: 'field' }, h('span', {}, 'Build progress'), progress), state, area.element,
      h('div', { className: 'actions' }, button(found === undefined ? 'Save index' : 'Replace index', replace, { className: 'primary' })), outcome)
  }

  void listCollections()
  const element = h('div', { className: 'collections' },
    h('section', { 'aria-label': 'Collections' },
      h('h2', {}, 'Collections'),
      form(open, { className: 'inline', 'aria-label': 'Open a collection' }, field('Collection', name), h('button', { type: 'submit' }, 'Open')),
      known, trouble),
    panel)
  return { element, stop }
}
