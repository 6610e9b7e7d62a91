import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignJWT } from 'jose'
import puppeteer, { type Browser } from 'puppeteer-core'
import { whenDone } from '../helpers/cleanup.js'

/** Debian's chromium package (`apt-get install chromium`): the browser tests need a real browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** A free port of localhost for a page: served there, it is on another origin than the service on 127.0.0.1. */
export async function pageOriginPort (): Promise<number> {
  return await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => { const { port } = probe.address() as AddressInfo; probe.close(() => resolve(port)) })
  })
}

/** Headless Chromium, closed after the test. */
export async function launchBrowser (): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`)
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, timeout: 30_000, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']
  })
  whenDone(() => browser.close())
  return browser
}

const ISSUER = 'https://id.example.test'

/** JWT settings of an identity provider whose users read and write their own documents, under `users:<sub>:`. */
export function usersJwt (secret: string) {
  return {
    key: { kind: 'secret' as const, secret },
    issuer: ISSUER,
    audience: 'jsondocs',
    scopesTemplate: [{ prefix: 'users:{sub}:', rights: ['read' as const, 'write' as const] }]
  }
}

/** A JWT for user `sub` of that provider, valid ten minutes. */
export async function signIn (secret: string, sub: string): Promise<string> {
  return await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuer(ISSUER)
    .setAudience('jsondocs').setExpirationTime('10m').sign(new TextEncoder().encode(secret))
}
