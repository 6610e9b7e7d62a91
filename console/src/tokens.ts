/// <reference lib="dom" />
import { button, field, form, h } from './dom.js'
import { describeError } from './problems.js'
import type { Routes, Scope, TokenInfo } from './api.js'
import type { View } from './view.js'

const RIGHTS = ['read', 'write', 'schema'] as const

/** One scope's row in the creation form: a prefix and its rights. */
function scopeRow (remove: (row: HTMLElement) => void): { row: HTMLElement, scope (): Scope } {
  const prefix = h('input', { type: 'text', autocomplete: 'off', placeholder: 'users:42:', 'data-role': 'prefix' })
  const boxes = RIGHTS.map((right) => h('input', { type: 'checkbox', value: right, checked: right === 'read' }))
  const row: HTMLElement = h('fieldset', { className: 'scope' }, h('legend', {}, 'Scope'),
    field('Key prefix', prefix),
    ...boxes.map((box) => h('label', { className: 'check-label' }, box, ` ${box.value}`)),
    h('button', { type: 'button', onclick: () => remove(row) }, 'Remove scope'))
  return { row, scope: () => ({ prefix: prefix.value, rights: boxes.filter((box) => box.checked).map((box) => box.value as Scope['rights'][number]) }) }
}

/** The admin's tokens: every live one, creation with scopes and a time to live (the secret shown once), revocation. */
export function tokensView (routes: Routes, say: (message: string) => void): View {
  const rows = h('tbody')
  const trouble = h('div')
  const secret = h('div', { 'aria-live': 'polite' })
  const label = h('input', { type: 'text', name: 'label', autocomplete: 'off', maxlength: 256 })
  const ttl = h('input', { type: 'number', name: 'ttl', min: 1, step: 1, placeholder: 'never expires' })
  const scopes = h('div')
  const held: Array<ReturnType<typeof scopeRow>> = []

  function addScope (): void {
    const added = scopeRow((row) => { held.splice(held.findIndex((item) => item.row === row), 1); row.remove() })
    held.push(added)
    scopes.append(added.row)
  }

  async function refresh (): Promise<void> {
    try {
      const tokens = await routes.tokens()
      rows.replaceChildren(...tokens.map(tokenRow))
      if (tokens.length === 0) rows.replaceChildren(h('tr', {}, h('td', { colspan: 5 }, 'No tokens.')))
    } catch (error) {
      trouble.replaceChildren(describeError(error))
    }
  }

  function tokenRow (token: TokenInfo): HTMLElement {
    const name = token.label || token.id.slice(0, 8)
    return h('tr', {},
      h('td', {}, token.label ?? '', h('br'), h('code', { className: 'quiet' }, token.id.slice(0, 8))),
      h('td', {}, ...token.scopes.map((scope) => h('div', {}, h('code', {}, scope.prefix || '(every key)'), ` ${scope.rights.join(', ')}`))),
      h('td', {}, new Date(token.createdAt).toLocaleString()),
      h('td', {}, token.expiresAt ? new Date(token.expiresAt).toLocaleString() : 'never'),
      h('td', {}, button('Revoke', async () => {
        try {
          await routes.revokeToken(token.id)
          say(`Revoked token ${name}`)
          await refresh()
        } catch (error) {
          trouble.replaceChildren(describeError(error))
        }
      }, { className: 'danger', 'aria-label': `Revoke token ${name}` })))
  }

  async function create (): Promise<void> {
    trouble.replaceChildren()
    secret.replaceChildren()
    try {
      const created = await routes.createToken({
        scopes: held.map((item) => item.scope()),
        ...(label.value === '' ? {} : { label: label.value }),
        ...(ttl.value === '' ? {} : { ttl: Number(ttl.value) })
      })
      const value = h('output', { className: 'secret' }, created.token)
      const heading = h('h3', { tabindex: -1 }, 'New token: copy it now')
      secret.replaceChildren(h('section', { className: 'created', 'aria-label': 'New token' }, heading,
        h('p', {}, 'This is the only time the service shows this token. It is not stored here, nor anywhere readable.'),
        value,
        h('div', { className: 'actions' },
          button('Copy', async () => { await navigator.clipboard.writeText(created.token); say('Token copied') }),
          button('Done', () => secret.replaceChildren()))))
      heading.focus()
      label.value = ''
      ttl.value = ''
      held.splice(0).forEach(({ row }) => row.remove())
      addScope()
      await refresh()
    } catch (error) {
      trouble.replaceChildren(describeError(error))
    }
  }

  addScope()
  void refresh()
  const element = h('section', { className: 'tokens', 'aria-label': 'Tokens' },
    h('h2', {}, 'Tokens'),
    form(create, { className: 'create-token', 'aria-label': 'Create a token' },
      h('h3', {}, 'Create a token'),
      h('div', { className: 'inline' }, field('Label', label), field('Time to live (seconds)', ttl)),
      scopes,
      h('div', { className: 'actions' }, h('button', { type: 'button', onclick: addScope }, 'Add scope'), h('button', { type: 'submit', className: 'primary' }, 'Create token'))),
    secret, trouble,
    h('div', { className: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Live tokens' },
      h('table', {}, h('caption', {}, 'Live tokens'),
        h('thead', {}, h('tr', {}, ...['Label', 'Scopes', 'Created', 'Expires', ''].map((text) => h('th', { scope: 'col' }, text)))),
        rows)))
  return { element, stop: () => {} }
}
