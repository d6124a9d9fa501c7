// The Registries page in Chromium against the real service and the test's private registries
// (the distribution registry behind TLS from a test CA: htpasswd, token authentication, and the
// proxy reporting a pull quota): a registry added with its CA pasted, tested (ok, then refused once
// its password is changed to a wrong one), its quota shown; one imported from the host's docker
// configuration; an image pulled with the kept credentials; a registry removed. The password is never
// in the page. In light and dark, nothing reaches out of the viewport and axe-core finds no serious
// or critical violation.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { dockerEngine } from "#lib/engine/client.ts"
import { xRegistryAuth } from "#lib/registries/registries.ts"
import { engineHost, testImage } from "../support/engine.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { overflow, snap, violations } from "../support/page-checks.ts"
import { privateRegistries, registryHub, type PrivateRegistries } from "../support/private-registry.ts"
import { startService, type Service } from "../support/service.ts"

let hub: Awaited<ReturnType<typeof registryHub>>
let reg: PrivateRegistries
let svc: Service
let browser: Browser
let page: Page
let docker: string

beforeAll(async () => {
  hub = await registryHub([process.env.TEST_NETNS_A!])
  reg = await privateRegistries(hub.ns, hub.address)
  reg.trust(engineHost("a"))
  const pusher = dockerEngine(engineHost("a"), undefined, async () =>
    xRegistryAuth({ ...reg.users.basic, serveraddress: reg.basic }),
  )
  await pusher.tagImage(testImage(), `${reg.basic}/ui/app`, "1")
  await pusher.pushImage(`${reg.basic}/ui/app:1`)
  await pusher.removeImage(`${reg.basic}/ui/app:1`)
  docker = mkdtempSync(join(tmpdir(), "hm-ui-docker-config-"))
  const auth = Buffer.from(`${reg.users.token.username}:${reg.users.token.password}`).toString("base64")
  writeFileSync(join(docker, "config.json"), JSON.stringify({ auths: { [reg.token]: { auth } } }))
  svc = await startService({ DOCKER_HOST: engineHost("a"), DOCKER_CONFIG: docker })
  browser = await openBrowser()
  page = browser.page
}, 120_000)

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await svc?.stop()
  await dockerEngine(engineHost("a"))
    .removeImage(`${reg.basic}/ui/app:1`, { force: true })
    .catch(() => {})
  await reg?.stop()
  await hub?.remove()
  rmSync(docker, { recursive: true, force: true })
}, 60_000)

const row = (name: string) => page.locator("main tbody tr", { hasText: name }).first()
const passwords = () => [reg.users.basic.password, reg.users.token.password, "a-wrong-one-55"]

async function pageHoldsNoPassword() {
  const html = await page.content()
  const values = await page.locator("input").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))
  for (const p of passwords()) expect([html.includes(p), values.includes(p)]).toEqual([false, false])
}

test("a registry added with its CA, tested, refused with a wrong password; one imported; a pull; a removal", async () => {
  await show(page, `${svc.url}/#/registries`)
  await page.getByText("No registry kept yet").first().waitFor()

  await page.locator("#registry-new-name").fill("home")
  await page.locator("#registry-new-address").fill(reg.basic)
  await page.locator("#registry-new-username").fill(reg.users.basic.username)
  await page.locator("#registry-new-password").fill(reg.users.basic.password)
  await page.locator("#registry-new-ca").fill(reg.ca)
  await page.getByRole("button", { name: "Add", exact: true }).click()
  await row("home").waitFor()
  expect(await row("home").textContent()).toContain("kept")
  await pageHoldsNoPassword()

  await page.getByRole("button", { name: "Test home" }).click()
  await row("home").locator(".ok").waitFor()
  expect(await row("home").textContent()).toContain("logged in with Basic authentication as user alice")

  await page.getByRole("button", { name: "Edit home" }).click()
  const dialog = page.locator("dialog.modal")
  await dialog.locator("#registry-edit-password").fill("a-wrong-one-55")
  await dialog.getByRole("button", { name: "Save" }).click()
  await dialog.waitFor({ state: "detached" })
  await page.getByRole("button", { name: "Test home" }).click()
  await row("home").locator(".error-text").waitFor()
  expect(await row("home").textContent()).toContain(`registry ${reg.basic} refused the credentials of user alice`)
  await pageHoldsNoPassword()

  await page.getByRole("button", { name: "Edit home" }).click()
  await dialog.locator("#registry-edit-password").fill(reg.users.basic.password)
  await dialog.getByRole("button", { name: "Save" }).click()
  await dialog.waitFor({ state: "detached" })

  await page.locator("#registry-new-name").fill("limited")
  await page.locator("#registry-new-address").fill(`${reg.limited}/ui`)
  await page.locator("#registry-new-username").fill(reg.users.basic.username)
  await page.locator("#registry-new-password").fill(reg.users.basic.password)
  await page.locator("#registry-new-ca").fill(reg.ca)
  await page.getByRole("button", { name: "Add", exact: true }).click()
  await row("limited").waitFor()
  await page.getByRole("button", { name: "Test limited" }).click()
  await row("limited")
    .getByText(/100 of 100 pulls left per 6 h/)
    .waitFor()

  await page.getByRole("button", { name: "Import from the host's docker configuration" }).click()
  await page.getByText(/1 imported \(10\.216/).waitFor()
  expect(await row(reg.token).textContent()).toContain("imported")

  await page.locator("#pull-ref").fill(`${reg.basic}/ui/app:1`)
  await page.getByRole("button", { name: "Pull", exact: true }).click()
  await page.getByText(new RegExp(`^Pulled ${reg.basic}/ui/app:1 .* with the credentials of home`)).waitFor()

  await page.getByRole("button", { name: "Remove limited" }).click()
  await page.locator("dialog.modal").getByRole("button", { name: "Confirm" }).click()
  await row("limited").waitFor({ state: "detached" })
  await pageHoldsNoPassword()
}, 120_000)

test("light and dark: nothing out of the viewport, no serious or critical violation; at a phone's width, nothing out of it", async () => {
  const faults: string[] = []
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await show(page, `${svc.url}/#/registries`)
    await row("home").waitFor()
    faults.push(...(await overflow(page)).map((f) => `${scheme}: ${f}`))
    faults.push(...(await violations(page)).map((v) => `${scheme}: ${v}`))
    await snap(page, scheme, "registries")
  }
  await page.emulateMedia({ colorScheme: null })
  await page.setViewportSize({ width: 390, height: 844 })
  await show(page, `${svc.url}/#/registries`)
  await row("home").waitFor()
  faults.push(...(await overflow(page)).map((f) => `phone: ${f}`))
  await snap(page, "phone", "registries")
  await page.setViewportSize({ width: 1280, height: 860 })
  expect(faults).toEqual([])
}, 60_000)
