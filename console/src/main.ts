/// <reference lib="dom" />
import { routes as routesOf } from './api.js'
import { collectionsView } from './collections.js'
import { button, field, form, h } from './dom.js'
import { documentsView } from './documents.js'
import { describeError } from './problems.js'
import { queryView } from './query.js'
import { signIn, signOut, storedToken, type Session } from './session.js'
import { tokensView } from './tokens.js'
import type { View } from './view.js'

const app = document.getElementById('app')!
const status = h('p', { className: 'status', role: 'status', 'aria-live': 'polite' })

function say (message: string): void {
  status.textContent = message
}

function signInPage (problem?: unknown): void {
  const token = h('input', { type: 'password', name: 'token', required: true, autocomplete: 'off', spellcheck: 'false' })
  const trouble = h('div', {}, problem === undefined ? null : describeError(problem))
  app.replaceChildren(h('main', { className: 'sign-in' },
    h('h1', {}, 'jsondocs console'),
    form(async () => {
      try {
        shell(await signIn(token.value))
      } catch (error) {
        trouble.replaceChildren(describeError(error))
        token.focus()
      }
    }, { 'aria-label': 'Sign in' },
    field('Token', token, 'A token from the admin, or the admin token. It is kept in this tab only, until you sign out or close it.'),
    h('button', { type: 'submit', className: 'primary' }, 'Sign in')),
    trouble))
  token.focus()
}

type Page = 'documents' | 'query' | 'collections' | 'tokens'

function shell (session: Session): void {
  const routes = routesOf(session.http)
  const content = h('main', { id: 'content' })
  let current: View | undefined

  const pages: Array<[Page, string]> = [['documents', 'Documents'], ['query', 'Query'], ['collections', 'Collections']]
  if (session.admin) pages.push(['tokens', 'Tokens'])
  const tabs = new Map(pages.map(([page, title]) => [page, h('button', { type: 'button', onclick: () => go(page) }, title)]))

  function go (page: Page, key?: string): void {
    current?.stop()
    say('')
    for (const [name, tab] of tabs) tab.setAttribute('aria-current', String(name === page))
    current = page === 'documents'
      ? documentsView(session, routes, say, key)
      : page === 'query'
        ? queryView(routes, (opened) => go('documents', opened))
        : page === 'collections' ? collectionsView(routes, say) : tokensView(routes, say)
    content.replaceChildren(current.element)
  }

  app.replaceChildren(
    h('header', {},
      h('h1', {}, 'jsondocs'),
      h('nav', { 'aria-label': 'Console' }, ...tabs.values()),
      h('span', { className: 'who' }, session.admin ? 'admin token' : 'token'),
      button('Sign out', () => { current?.stop(); signOut(); say(''); signInPage() })),
    status, content)
  go('documents')
}

const token = storedToken()
if (token === null) signInPage()
else signIn(token).then(shell, (error: unknown) => { signOut(); signInPage(error) })
