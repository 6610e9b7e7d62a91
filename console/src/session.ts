/// <reference lib="dom" />
import { connect, type Database } from '../../client/src/index.js'
import { JsondocsError } from '../../client/src/errors.js'
import { transport, type Transport } from '../../client/src/http.js'

/** Where the token is kept: this tab's session storage, gone when the tab closes; never a URL, never a log. */
const STORED = 'jsondocs.console.token'

export interface Session {
  /** Whether the token is the admin token (it may manage tokens). */
  admin: boolean
  db: Database
  http: Transport
}

/** The service's base URL: the page is at `<base>/console`. */
export function serviceBase (): string {
  return location.pathname.replace(/\/console\/?$/, '')
}

function sessionOf (token: string, admin: boolean): Session {
  const options = { baseUrl: serviceBase(), token: () => token }
  return { admin, db: connect(options), http: transport(options) }
}

/**
 * Signs in with a token: asks the service what the token may do (the token list answers the admin alone,
 * 403 to any other valid token) and keeps it for this tab. An unknown, revoked or expired token throws
 * the service's 401.
 */
export async function signIn (token: string): Promise<Session> {
  let admin = true
  try {
    await sessionOf(token, true).http.send('GET', '/tokens')
  } catch (error) {
    if (!(error instanceof JsondocsError && error.status === 403)) throw error
    admin = false
  }
  sessionStorage.setItem(STORED, token)
  return sessionOf(token, admin)
}

/** The token this tab signed in with, if any. */
export function storedToken (): string | null {
  return sessionStorage.getItem(STORED)
}

export function signOut (): void {
  sessionStorage.removeItem(STORED)
}
