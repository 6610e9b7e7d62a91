/// <reference lib="dom" />
import { button, field, form, h } from './dom.js'
import { describeError } from './problems.js'
import type { IndexField, QueryPage, Routes } from './api.js'
import type { View } from './view.js'

/** What a condition on a field of each type looks like in the short GET form. */
const HINTS: Record<IndexField['type'], string> = {
  tag: 'open, in:a,b, prefix:ab, exists:true',
  number: '42, gte:10, lt:20, in:1,2',
  boolean: 'true or false',
  text: 'text:some words'
}

/** The query form's `fields` list: pointers joined by commas, a comma or backslash in one escaped. */
export function listOf (pointers: string[]): string {
  return pointers.map((pointer) => pointer.replace(/[\\,]/g, (c) => '\\' + c)).join(',')
}

function cell (value: unknown): string {
  if (value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * A collection's query in the short GET form: a condition per field of the collection's index, a sort on a
 * sortable field, the matches as a table of the index's fields, page after page.
 */
export function queryView (routes: Routes, openDocument: (key: string) => void): View {
  const collection = h('input', { type: 'text', name: 'collection', required: true, autocomplete: 'off', placeholder: 'orders' })
  const conditions = h('div')
  const results = h('div', { className: 'results' })
  const trouble = h('div')

  async function load (): Promise<void> {
    trouble.replaceChildren()
    conditions.replaceChildren()
    results.replaceChildren()
    const name = collection.value
    try {
      const index = await routes.index(name)
      if (index === undefined) {
        conditions.replaceChildren(h('p', {}, `The collection ${name} has no index: define one under Collections.`))
        return
      }
      conditions.replaceChildren(conditionsForm(name, index.fields))
    } catch (error) {
      trouble.replaceChildren(describeError(error))
    }
  }

  function conditionsForm (name: string, fields: IndexField[]): HTMLElement {
    const inputs = fields.map((indexed) => ({
      indexed, input: h('input', { type: 'text', autocomplete: 'off', 'data-pointer': indexed.pointer })
    }))
    const sort = h('select', { name: 'sort' }, h('option', { value: '' }, 'by key'),
      ...fields.filter((indexed) => indexed.sortable).flatMap(({ pointer }) => [
        h('option', { value: pointer }, `${pointer} ascending`), h('option', { value: `-${pointer}` }, `${pointer} descending`)]))
    const limit = h('input', { type: 'number', name: 'limit', min: 1, max: 100, value: 20 })
    const columns = fields.map(({ pointer }) => pointer).slice(0, 16)

    async function run (cursor: string | null): Promise<void> {
      trouble.replaceChildren()
      const parameters = new URLSearchParams()
      for (const { indexed, input } of inputs) if (input.value.trim() !== '') parameters.append(indexed.pointer, input.value)
      if (sort.value !== '') parameters.set('sort', sort.value)
      parameters.set('fields', listOf(columns))
      parameters.set('limit', limit.value || '20')
      if (cursor !== null) parameters.set('cursor', cursor)
      try {
        show(await routes.query(name, parameters), cursor !== null)
      } catch (error) {
        trouble.replaceChildren(describeError(error))
      }
    }

    function show (page: QueryPage, next: boolean): void {
      const rows = page.items.map(({ key, value }) => h('tr', {},
        h('th', { scope: 'row' }, h('button', { type: 'button', className: 'link', onclick: () => openDocument(key) }, key)),
        ...columns.map((pointer) => h('td', {}, cell((value as Record<string, unknown>)[pointer])))))
      const table = h('table', {},
        h('caption', {}, `${page.items.length} ${page.items.length === 1 ? 'match' : 'matches'}${next ? ' (next page)' : ''}`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'key'), ...columns.map((pointer) => h('th', { scope: 'col' }, pointer)))),
        h('tbody', {}, ...rows))
      results.replaceChildren(h('div', { className: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Query results' }, table),
        page.cursor === null ? h('p', { className: 'quiet' }, 'No more matches.') : button('Next page', () => run(page.cursor)))
    }

    return form(() => run(null), { className: 'conditions', 'aria-label': 'Conditions' },
      h('p', { className: 'quiet' }, 'Every condition given must hold. Leave a field empty to ignore it.'),
      ...inputs.map(({ indexed, input }) => field(`${indexed.pointer} (${indexed.type})`, input, HINTS[indexed.type])),
      h('div', { className: 'inline' }, field('Sort', sort), field('Page size', limit)),
      h('button', { type: 'submit', className: 'primary' }, 'Run query'))
  }

  const element = h('section', { className: 'query', 'aria-label': 'Query a collection' },
    h('h2', {}, 'Query'),
    form(load, { className: 'inline', 'aria-label': 'Choose a collection' }, field('Collection', collection), h('button', { type: 'submit' }, 'Load index')),
    trouble, conditions, results)
  return { element, stop: () => {} }
}
