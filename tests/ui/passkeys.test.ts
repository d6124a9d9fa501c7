// Passkeys in the browser: headless Chromium with the DevTools protocol's virtual authenticator (CTAP2,
// internal, keeping discoverable credentials, verifying its user) against the real service with
// SVC_AUTH=local, opened at http://localhost (browsers allow WebAuthn on plain HTTP there only). A
// user adds a passkey from the Account page, signs out, signs in with the password and the passkey as
// the second step, then with the passkey alone; removes it with the password. A container's shell and
// an event stream a browser holds open end when its session is ended from another browser. Screenshots of the Account
// page with a passkey and of the second step go to a temporary folder (printed), or with
// UPDATE_SCREENSHOTS=1 to docs/screenshots/.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { CDPSession, Page } from "playwright-core"
import { cleanup, engineHost, realEngine, runContainer } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { addUser, USER_PASSWORD } from "../support/users.ts"

let svc: Service
let url: string
let browser: Browser
let page: Page
let cdp: CDPSession
let authenticatorId: string

const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dir, "../../docs/screenshots")
  : mkdtempSync(join(tmpdir(), "hm-screenshots-"))
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

beforeAll(async () => {
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_AUTH: "local" })
  url = svc.url.replace("127.0.0.1", "localhost")
  for (const name of ["pia", "vic"]) await addUser(svc.dataDir, name, "operator")
  browser = await openBrowser()
  page = browser.page
  cdp = await page.context().newCDPSession(page)
  await cdp.send("WebAuthn.enable")
  ;({ authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  }))
}, 120_000)

afterEach(async () => {
  expect(browser.pageErrors.splice(0)).toEqual([])
  await browser.context.clearCookies()
  await page.goto("about:blank")
})

afterAll(async () => {
  if (!process.env.UPDATE_SCREENSHOTS) console.log(`screenshots: ${SHOTS}`)
  await cleanup(realEngine())
  await browser?.close()
  await svc?.stop()
})

async function password(p: Page, user: string): Promise<void> {
  await p.goto(url)
  await p.getByRole("heading", { name: "Sign in" }).waitFor()
  await p.locator("#signin-user").fill(user)
  await p.locator("#signin-password").fill(USER_PASSWORD)
  await p.getByRole("button", { name: "Sign in", exact: true }).click()
}

async function signedInAs(p: Page, user: string): Promise<void> {
  await p.locator("#user .user").waitFor()
  expect(await p.locator("#user .user").textContent()).toBe(user)
}

async function signOut(p: Page): Promise<void> {
  await p.getByRole("button", { name: "Sign out" }).click()
  await p.getByRole("heading", { name: "Sign in" }).waitFor()
}

test("a passkey added on the Account page signs in as the second step, then without the password; removed with the password", async () => {
  await password(page, "pia")
  await signedInAs(page, "pia")
  await show(page, `${url}/#/account`)
  await page.locator("#passkey-name").fill("laptop")
  await page.getByRole("button", { name: "Add a passkey" }).click()
  const codes = page.getByRole("list", { name: "Recovery codes" })
  await codes.waitFor()
  expect(await codes.locator("li").count()).toBe(10)
  await page.getByRole("list", { name: "Passkeys" }).getByText("laptop").waitFor()
  await shot("account-passkey")
  // The authenticator keeps it as a discoverable credential for localhost, with pia's handle.
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId })
  expect(credentials.map((c) => [c.rpId, c.isResidentCredential, c.userName])).toEqual([["localhost", true, "pia"]])

  // The password, then the passkey.
  await signOut(page)
  await password(page, "pia")
  await page.getByRole("heading", { name: "Second step" }).waitFor()
  expect(await page.locator("#user").isVisible()).toBe(false)
  await shot("signin-second-step")
  await page.getByRole("button", { name: "Use a passkey" }).click()
  await signedInAs(page, "pia")

  // The passkey alone: no user name, no password.
  await signOut(page)
  await page.getByRole("button", { name: "Use a passkey" }).click()
  await signedInAs(page, "pia")
  const used = (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials[0]!
  expect(used.signCount).toBeGreaterThanOrEqual(2)

  // Removed with the password; the password alone signs in again.
  await show(page, `${url}/#/account`)
  await page.getByRole("button", { name: "Remove the passkey laptop" }).click()
  await page.locator("#proof").fill(USER_PASSWORD)
  await page.getByRole("button", { name: "Remove", exact: true }).click()
  await page.getByText("No passkeys.").waitFor()
  await signOut(page)
  await password(page, "pia")
  await signedInAs(page, "pia")
  await cdp.send("WebAuthn.clearCredentials", { authenticatorId })
}, 120_000)

test("a session ended from another browser ends the container shell and the event stream it held open", async () => {
  const id = await runContainer(realEngine(), `hm-pk-shell-${process.pid}`, "sleep 600")
  const other = await openBrowser()
  try {
    await password(page, "vic")
    await signedInAs(page, "vic")
    await page.goto(`${url}/#/containers/${id}/shell`)
    const status = page.locator(".term-status")
    await status.filter({ hasText: "Connected" }).waitFor()
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const stream = new EventSource("/api/events")
          ;(window as unknown as { stream: EventSource }).stream = stream
          stream.onopen = () => resolve()
          setTimeout(() => reject(new Error("the event stream did not open")), 30_000)
        }),
    )
    await password(other.page, "vic")
    await signedInAs(other.page, "vic")
    await show(other.page, `${url}/#/account`)
    const end = other.page.getByRole("button", { name: /^End the session of vic/ })
    await end.first().waitFor()
    await end.click()
    await other.page.getByRole("button", { name: "Confirm" }).click()
    await other.page.getByText(/Ended the session/).waitFor()
    // The shell closes with the reason; the stream ends and, reconnecting, is refused (401): CLOSED.
    await status.filter({ hasText: "Disconnected: signed out" }).waitFor()
    await page.waitForFunction(() => (window as unknown as { stream: EventSource }).stream.readyState === 2)
    expect(other.pageErrors).toEqual([])
  } finally {
    await other.close()
  }
}, 120_000)
