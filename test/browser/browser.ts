import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { SignJWT } from 'jose'
import puppeteer, { type Browser } from 'puppeteer-core'
import { inject } from 'vitest'
import { whenDone } from '../helpers/cleanup.js'

/** A free port of localhost for a page: served there, it is on another origin than the service on 127.0.0.1. */
export async function pageOriginPort (): Promise<number> {
  return await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => { const { port } = probe.address() as AddressInfo; probe.close(() => resolve(port)) })
  })
}

/**
 * The Chromium the suite's setup found (test/setup/browser.ts), else the one the project provisions and the
 * LD_LIBRARY_PATH it runs with: the provisioning script waits for the run the setup started, then names them.
 */
async function chromium (): Promise<{ path: string, libraryPath: string }> {
  const given = inject('chromium')
  if (given) return { path: given, libraryPath: '' }
  const { stdout } = await promisify(execFile)('bash', ['scripts/provision-chromium.sh'])
  const [path, libraryPath] = stdout.trim().split('\n')
  return { path: path!, libraryPath: libraryPath! }
}

/** Headless Chromium, closed after the test. */
export async function launchBrowser (): Promise<Browser> {
  const { path, libraryPath } = await chromium()
  const browser = await puppeteer.launch({
    executablePath: path,
    headless: true,
    timeout: 30_000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    ...(libraryPath ? { env: { ...process.env, LD_LIBRARY_PATH: libraryPath } } : {})
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
