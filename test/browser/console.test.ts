/// <reference lib="dom" />
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { ElementHandle, Page } from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, bearer, buildGuardedApp } from '../access/guarded-app.js'
import { get, put } from '../helpers/app.js'
import { INDEX_READY_MS } from '../collections/indexes/helpers.js'
import { eventually } from '../helpers/local-redis.js'
import { launchBrowser } from './browser.js'

const admin = bearer(ADMIN_TOKEN)
/** Set CONSOLE_SCREENSHOTS to a folder to keep a screenshot of each step there (desktop and 360 px wide). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS

/** Waits (in the page, bounded) until `check` holds; gives what it returned. */
async function until<A extends string[]> (page: Page, check: (...args: A) => unknown, ...args: A) {
  return await page.waitForFunction(check as (...args: string[]) => unknown, { timeout: 20_000, polling: 50 }, ...args)
}

/** The enabled button with exactly this text (inside `within`), once there: what a person would press. */
async function buttonNamed (page: Page, text: string, within = 'body'): Promise<ElementHandle<HTMLButtonElement>> {
  const handle = await until(page, (within: string, text: string) => [...document.querySelectorAll<HTMLButtonElement>(`${within} button`)]
    .find((button) => button.textContent === text && !button.disabled && button.offsetParent !== null), within, text)
  return handle.asElement() as ElementHandle<HTMLButtonElement>
}

async function press (page: Page, text: string, within?: string): Promise<void> {
  await (await buttonNamed(page, text, within)).click()
}

const textOf = (page: Page, selector: string) => page.$eval(selector, (element) => element.textContent ?? '')

async function shoot (page: Page, name: string): Promise<void> {
  if (SHOTS === undefined) return
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, `${name}.png`) as `${string}.png`, fullPage: true })
}

describe('the console, used in a browser as a person would', () => {
  it('signs in, browses, edits, resolves a conflict, follows another writer, queries, and manages tokens', async () => {
    const app = await buildGuardedApp()
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    const orders = [
      ['orders:1', { status: 'open', total: 12, title: 'red shoes' }],
      ['orders:2', { status: 'paid', total: 30, title: 'blue hat' }],
      ['orders:3', { status: 'open', total: 7, title: 'green scarf' }]
    ] as const
    for (const [key, value] of orders) expect((await put(app, `/docs/${key}`, value, admin)).statusCode).toBe(201)
    expect([200, 202]).toContain((await put(app, '/collections/orders/index', {
      fields: [{ pointer: '/status', type: 'tag' }, { pointer: '/total', type: 'number', sortable: true }, { pointer: '/title', type: 'text' }]
    }, admin)).statusCode)
    await eventually(async () => (await get(app, '/collections/orders/index', admin)).json().state === 'ready', INDEX_READY_MS)

    const browser = await launchBrowser()
    const page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    const failures: string[] = []
    const urls: string[] = []
    page.on('pageerror', (error) => failures.push(String(error)))
    page.on('console', (message) => { if (/Content.Security.Policy|Uncaught/i.test(message.text())) failures.push(message.text()) })
    page.on('request', (request) => urls.push(request.url()))
    await page.goto(`${baseUrl}/console`, { timeout: 20_000 })

    // Sign in, by keyboard: a wrong token first, then the admin's.
    await page.waitForSelector('input[name=token]:focus')
    await page.keyboard.type('jdt.not.a-token')
    await page.keyboard.press('Enter')
    await until(page, () => document.querySelector('.problem')?.textContent?.includes('401'))
    await shoot(page, 'sign-in')
    await page.$eval('input[name=token]', (input) => { (input as HTMLInputElement).value = '' })
    await page.type('input[name=token]', ADMIN_TOKEN)
    await page.keyboard.press('Enter')
    await until(page, () => document.querySelector('header .who')?.textContent === 'admin token')
    expect(await page.evaluate(() => sessionStorage.getItem('jsondocs.console.token'))).toBe(ADMIN_TOKEN)

    // Browse by prefix; open a document: its tree, ETag and TTL.
    await page.type('input[name=prefix]', 'orders:')
    await page.$eval('input[name=page-size]', (input) => { (input as HTMLInputElement).value = '1000' })
    await press(page, 'List')
    // Pages of what SCAN finds in 1000 keys of the suite's whole Redis (every file's keys: many pages), each
    // added below the last, until the listing says it ended.
    await page.waitForFunction(() => {
      const next = [...document.querySelectorAll<HTMLButtonElement>('.browse button')].find((button) => button.textContent === 'More keys' && !button.disabled)
      next?.click()
      return document.querySelector('.browse')?.textContent?.includes('End of the list.')
    }, { timeout: 90_000, polling: 50 })
    expect(await page.$$eval('.keys button', (buttons) => buttons.map((button) => button.textContent).sort())).toEqual(['orders:1', 'orders:2', 'orders:3'])
    await press(page, 'orders:1', '.keys')
    const first = (await get(app, '/docs/orders:1', admin)).headers.etag as string
    await until(page, (etag: string) => document.querySelector('.etag')?.textContent === etag, first)
    expect(await textOf(page, '.document-body')).toContain('"red shoes"')
    await until(page, () => document.querySelector('.ttl')?.textContent?.startsWith('none'))

    // Another writer: the open document follows.
    const live = (await put(app, '/docs/orders:1', { ...orders[0][1], title: 'red boots' }, admin)).headers.etag as string
    await until(page, (etag: string) => document.querySelector('.etag')?.textContent === etag, live)
    expect(await textOf(page, '.document-body')).toContain('"red boots"')
    await shoot(page, 'document')

    // Edit: invalid JSON is refused with where it is wrong; valid JSON is saved with If-Match.
    await press(page, 'Edit')
    await page.locator('#editor-text').fill('{"status": "open",\n "total": 12,,}')
    await until(page, () => document.querySelector('#editor-check')?.textContent?.startsWith('Not JSON'))
    expect(await textOf(page, '#editor-check')).toMatch(/line 2/)
    expect(await page.$eval('.editor button.primary', (button) => (button as HTMLButtonElement).disabled)).toBe(true)
    await shoot(page, 'invalid-json')
    await page.locator('#editor-text').fill('{"status": "paid", "total": 12, "title": "red boots"}')
    await press(page, 'Save')
    await until(page, () => document.querySelector('.status')?.textContent?.startsWith('Saved orders:1'))
    expect((await get(app, '/docs/orders:1', admin)).json()).toEqual({ status: 'paid', total: 12, title: 'red boots' })

    // A conflict: someone saves between opening the editor and saving; the person keeps theirs.
    await press(page, 'Edit')
    const theirs = (await put(app, '/docs/orders:1', { status: 'open', total: 99, title: 'theirs' }, admin)).headers.etag as string
    await until(page, () => document.querySelector('.notice')?.textContent?.includes('newer version'))
    await page.locator('#editor-text').fill('{"status": "paid", "total": 13, "title": "mine"}')
    await press(page, 'Save')
    await until(page, () => document.querySelector('.conflict'))
    expect(await textOf(page, '.conflict .mine')).toContain('"mine"')
    expect(await textOf(page, '.conflict .theirs')).toContain('"theirs"')
    expect(await textOf(page, '.conflict figcaption:last-child, .conflict figure:last-child figcaption')).toContain(theirs)
    await shoot(page, 'conflict')
    await page.setViewport({ width: 360, height: 740 })
    await shoot(page, 'conflict-360')
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.setViewport({ width: 1280, height: 900 })
    await press(page, 'Keep mine')
    await until(page, () => document.querySelector('.status')?.textContent?.startsWith('Saved orders:1'))
    expect((await get(app, '/docs/orders:1', admin)).json()).toEqual({ status: 'paid', total: 13, title: 'mine' })

    // Another conflict, where the person takes the other version.
    await press(page, 'Edit')
    const other = (await put(app, '/docs/orders:1', { status: 'open', total: 1, title: 'other' }, admin)).headers.etag as string
    await page.locator('#editor-text').fill('{"title": "lost"}')
    await press(page, 'Save')
    await press(page, 'Take theirs')
    await until(page, (etag: string) => document.querySelector('.etag')?.textContent === etag &&
      document.querySelector('.document-body')?.textContent?.includes('"other"'), other)
    expect((await get(app, '/docs/orders:1', admin)).json()).toEqual({ status: 'open', total: 1, title: 'other' })

    // A query in the short form, as a table of the index's fields, page by page.
    await press(page, 'Query', 'nav')
    await page.type('input[name=collection]', 'orders')
    await press(page, 'Load index')
    await page.waitForSelector('input[data-pointer="/status"]')
    await page.type('input[data-pointer="/status"]', 'open')
    await page.select('select[name=sort]', '-/total')
    await page.$eval('input[name=limit]', (input) => { (input as HTMLInputElement).value = '1' })
    await press(page, 'Run query')
    await until(page, () => document.querySelectorAll('.results tbody tr').length === 1)
    const rows = () => page.$$eval('.results tbody tr', (trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)))
    expect(await rows()).toEqual([['orders:3', 'open', '7', 'green scarf']])
    await press(page, 'Next page')
    await until(page, () => document.querySelector('.results tbody th')?.textContent === 'orders:1')
    expect(await rows()).toEqual([['orders:1', 'open', '1', 'other']])
    await until(page, () => document.querySelector('.results')?.textContent?.includes('No more matches'))
    await shoot(page, 'query')
    await page.setViewport({ width: 360, height: 740 })
    await shoot(page, 'query-360')
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.setViewport({ width: 1280, height: 900 })

    // Tokens: create one scoped to orders: for an hour, its secret shown once; it works until revoked.
    await press(page, 'Tokens', 'nav')
    await page.type('input[name=label]', 'orders reader')
    await page.type('input[name=ttl]', '3600')
    await page.type('input[data-role=prefix]', 'orders:')
    await press(page, 'Create token')
    const secret = await (await until(page, () => document.querySelector('output.secret')?.textContent)).jsonValue() as string
    expect(secret).toMatch(/^jdt\./)
    await until(page, () => document.querySelector('.tokens tbody')?.textContent?.includes('orders reader'))
    expect((await get(app, '/docs/orders:2', bearer(secret))).statusCode).toBe(200)
    expect((await app.inject({ method: 'PUT', url: '/docs/orders:2', payload: {}, headers: bearer(secret) })).statusCode).toBe(403)
    await shoot(page, 'tokens')
    await press(page, 'Done')
    expect(await page.$('output.secret')).toBeNull()

    // Signed in with the new token instead: no Tokens page, and its refusals shown as problems.
    await press(page, 'Sign out')
    await page.waitForSelector('input[name=token]:focus')
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
    await page.type('input[name=token]', secret)
    await page.keyboard.press('Enter')
    await until(page, () => document.querySelector('header .who')?.textContent === 'token')
    expect(await page.$$eval('nav button', (buttons) => buttons.map((button) => button.textContent))).toEqual(['Documents', 'Query', 'Collections'])
    await page.type('input[name=key]', 'orders:2')
    await press(page, 'Open')
    await until(page, () => document.querySelector('.document-body')?.textContent?.includes('"blue hat"'))
    await press(page, 'Edit')
    await press(page, 'Save')
    await until(page, () => document.querySelector('.editor .problem')?.textContent?.startsWith('403 '))
    await press(page, 'Sign out')
    await page.type('input[name=token]', ADMIN_TOKEN)
    await page.keyboard.press('Enter')
    await press(page, 'Tokens', 'nav')
    await (await page.waitForSelector('button[aria-label="Revoke token orders reader"]'))!.click()
    await until(page, () => document.querySelector('.status')?.textContent === 'Revoked token orders reader' &&
      !document.querySelector('.tokens tbody')?.textContent?.includes('orders reader'))
    await eventually(async () => (await get(app, '/docs/orders:2', bearer(secret))).statusCode === 401, 5000)

    await page.setViewport({ width: 360, height: 740 })
    await shoot(page, 'tokens-360')
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.setViewport({ width: 1280, height: 900 })

    // Collections: a first schema, with how the documents there fare, and the index's state.
    await press(page, 'Collections', 'nav')
    await page.type('input[name=collection]', 'orders')
    await press(page, 'Open')
    await until(page, () => document.querySelector('.collection')?.textContent?.includes('Ready, 3 documents, 0 failures'))
    await page.locator('#schema-text').fill('{"type": "object", "properties": {"total": {"type": "number"}}}')
    await press(page, 'Save schema')
    await until(page, () => document.querySelector('.collection')?.textContent?.includes('3 checked, 0 violating'))
    await shoot(page, 'collections')

    // A write the schema refuses shows the service's problem, with the place.
    await press(page, 'Documents', 'nav')
    await page.type('input[name=key]', 'orders:2')
    await press(page, 'Open')
    await until(page, () => document.querySelector('.document-body')?.textContent?.includes('"blue hat"'))
    await press(page, 'Edit')
    await page.locator('#editor-text').fill('{"total": "many"}')
    await press(page, 'Save')
    await until(page, () => document.querySelector('.editor .problem')?.textContent?.includes('/total'))
    expect(await textOf(page, '.editor .problem')).toMatch(/^422 /)
    await shoot(page, 'schema-violation')
    expect((await get(app, '/docs/orders:2', admin)).json()).toEqual(orders[1][1])

    // The token went in headers alone: never in a URL.
    expect(urls.filter((url) => url.includes(ADMIN_TOKEN) || url.includes(secret))).toEqual([])
    expect(failures).toEqual([])
  }, 240_000)
})
