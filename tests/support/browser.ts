// Headless Chromium (Debian's) for the UI tests, driven by playwright-core, in a new, empty profile.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type BrowserContext, type Page } from "playwright-core"

export interface Browser {
  context: BrowserContext
  page: Page
  /** Script errors the page raised, to be taken (splice) by the test that caused them. */
  pageErrors: string[]
  close(): Promise<void>
}

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "hm-chromium-"))
  // playwright passes the profile directory as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--autoplay-policy=no-user-gesture-required",
    ],
    viewport: { width: 1280, height: 860 },
  })
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(60_000)
  const pageErrors: string[] = []
  page.on("pageerror", (err) => pageErrors.push(err.message))
  return {
    context,
    page,
    pageErrors,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/**
 * Opens `url` and waits for its page's heading. The shown page is emptied first: a change of the
 * address's hash is drawn only once its event has run, and until then the last page's heading
 * and rows would be found in its place. The address already shown is loaded again.
 */
export async function show(page: Page, url: string): Promise<void> {
  if (page.url() === url) await page.reload()
  else {
    await page.evaluate(() => document.querySelector("main")?.replaceChildren())
    await page.goto(url)
  }
  await page.locator("main h1").first().waitFor()
}
