// Second factors and sessions in the browser: headless Chromium against the real service with
// SVC_AUTH=local and SVC_AUTH_MFA=admins. A user sets up an authenticator app from the Account page
// with a code computed from the secret the page shows, is given ten recovery codes, and signs in again
// with the password and then a code; an admin without a factor is sent to the setup and sees nothing
// else until it is done; a session ended from another browser is signed out at its next request.
// Screenshots of the setup go to a temporary folder, or with UPDATE_SCREENSHOTS=1 to docs/screenshots/.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { codeAt } from "#lib/auth/totp.ts"
import { engineHost } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { addUser, USER_PASSWORD } from "../support/users.ts"

let svc: Service
let browser: Browser
let page: Page

const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dir, "../../docs/screenshots")
  : mkdtempSync(join(tmpdir(), "hm-screenshots-"))
const shot = (p: Page, name: string) => p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

beforeAll(async () => {
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_AUTH: "local", SVC_AUTH_MFA: "admins" })
  for (const [name, role] of [
    ["ada", "operator"],
    ["root", "admin"],
    ["vic", "viewer"],
  ])
    await addUser(svc.dataDir, name, role)
  browser = await openBrowser()
  page = browser.page
}, 120_000)

afterEach(async () => {
  expect(browser.pageErrors.splice(0)).toEqual([])
  await browser.context.clearCookies()
  await page.goto("about:blank")
})

afterAll(async () => {
  await browser?.close()
  await svc?.stop()
})

async function password(p: Page, user: string): Promise<void> {
  await p.goto(svc.url)
  await p.getByRole("heading", { name: "Sign in" }).waitFor()
  await p.locator("#signin-user").fill(user)
  await p.locator("#signin-password").fill(USER_PASSWORD)
  await p.getByRole("button", { name: "Sign in" }).click()
}

async function signOut(p: Page): Promise<void> {
  await p.getByRole("button", { name: "Sign out" }).click()
  await p.getByRole("heading", { name: "Sign in" }).waitFor()
}

/** Sets up the authenticator app on the page shown: the code computed from the secret it shows. */
async function setUpApp(p: Page, screenshot?: string): Promise<{ secret: string; codes: string[] }> {
  await p.getByRole("button", { name: "Set up an authenticator app" }).click()
  const secret = (await p.locator("#totp-secret").textContent())!
  expect(secret).toMatch(/^[A-Z2-7]{32}$/)
  expect(await p.getByRole("img", { name: /QR code/ }).isVisible()).toBe(true)
  if (screenshot) await shot(p, screenshot)
  await p.locator("#totp-code").fill(codeAt(secret, Date.now()))
  await p.getByRole("button", { name: "Turn on" }).click()
  const list = p.getByRole("list", { name: "Recovery codes" })
  await list.waitFor()
  return { secret, codes: await list.locator("li").allTextContents() }
}

test("a user sets up an authenticator app from the Account page, then signs in with password and code", async () => {
  await password(page, "ada")
  await page.locator("#user .user").waitFor()
  await show(page, `${svc.url}/#/account`)
  const { secret, codes } = await setUpApp(page, "account-totp-setup")
  expect(codes).toHaveLength(10)
  await signOut(page)
  await password(page, "ada")
  await page.getByRole("heading", { name: "Second step" }).waitFor()
  expect(await page.locator("#user").isVisible()).toBe(false)
  // The code of the step after the one that turned the app on: the one before is used.
  await page.locator("#signin-code").fill(codeAt(secret, Date.now() + 30_000))
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.locator("#user .user").waitFor()
  expect(await page.locator("#user .user").textContent()).toBe("ada")
  // A recovery code signs in once.
  await signOut(page)
  await password(page, "ada")
  await page.locator("#signin-code").fill(codes[0]!)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.locator("#user .user").waitFor()
}, 90_000)

test("an admin without a factor is sent to set one up, sees nothing else, and is signed in once it is on", async () => {
  await password(page, "root")
  await page.getByRole("heading", { name: "Second factor required" }).waitFor()
  expect(await page.locator("nav").isVisible()).toBe(false)
  // Nothing else answers meanwhile: the API refuses the pending state.
  expect(await page.evaluate(async () => (await fetch("/api/containers")).status)).toBe(401)
  const { codes } = await setUpApp(page, "enrol-required")
  expect(codes).toHaveLength(10)
  await page.getByRole("button", { name: "Continue" }).click()
  await page.locator("#user .user").waitFor()
  expect(await page.locator("#user .role").textContent()).toBe("admin")
  expect(await page.locator("nav").isVisible()).toBe(true)
  expect(await page.evaluate(async () => (await fetch("/api/containers")).status)).toBe(200)
}, 90_000)

test("a session ended from another browser is signed out at its next request", async () => {
  const other = await openBrowser()
  try {
    await password(page, "vic")
    await page.locator("#user .user").waitFor()
    await password(other.page, "vic")
    await other.page.locator("#user .user").waitFor()
    await show(other.page, `${svc.url}/#/account`)
    // The list loads after the page's heading: wait for its row, then count (this session has no button).
    const end = other.page.getByRole("button", { name: /^End the session of vic/ })
    await end.first().waitFor()
    expect(await end.count()).toBe(1)
    await end.click()
    await other.page.getByRole("button", { name: "Confirm" }).click()
    await other.page.getByText(/Ended the session/).waitFor()
    // The first browser's next request finds its session gone and shows the sign-in page.
    await page.locator('nav a[href="#/containers"]').click()
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
    expect(other.pageErrors).toEqual([])
  } finally {
    await other.close()
  }
}, 90_000)
