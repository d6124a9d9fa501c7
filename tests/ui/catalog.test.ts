// The catalog in Chromium against the real service and engine: the shipped templates searched and
// filtered, a template's form (a wrong port said beside its field, a secret as a password field), the
// preview with the guard's verdict and the compose file, an install whose generated secret is shown
// once, the stack's page showing its template and saving it as a template; a template binding / that
// the guard refuses (no Install offered). No request leaves for another site: every one the page makes
// goes to the service. At 1280 and 390 px, light and dark: nothing reaches out of the viewport and
// axe-core finds no serious or critical violation.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { overflow, snap, violations } from "../support/page-checks.ts"
import { startService, type Service } from "../support/service.ts"

let svc: Service
let browser: Browser
let page: Page
const elsewhere: string[] = []

beforeAll(async () => {
  await cleanup(realEngine())
  svc = await startService({ DOCKER_HOST: engineHost("a") })
  // Two templates of the `saved` source, in the folder format: one that runs here, one binding /.
  const saved = (id: string, manifest: string, compose: string) => {
    mkdirSync(join(svc.dataDir, "catalog/saved", id), { recursive: true })
    writeFileSync(join(svc.dataDir, "catalog/saved", id, "template.yaml"), manifest)
    writeFileSync(join(svc.dataDir, "catalog/saved", id, "compose.yaml"), compose)
  }
  saved(
    "idler",
    `title: Idler\ndescription: A container that idles, for the test\ncategories: [test]\nversion: "1.0"\nlogo: https://logos.example.com/idler.png\nnote: "Listening on \${PORT}"\nvariables:\n  - {key: PORT, label: Port, type: port, default: "18080"}\n  - {key: LEVEL, label: Level, choices: [low, high], default: low}\n  - {key: PIN, label: Pin, secret: true}\n`,
    `services:\n  app:\n    image: ${testImage()}\n    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]\n    environment: { LEVEL: "\${LEVEL}", PIN: "\${PIN}", PORT: "\${PORT}" }\n    labels: { ${TEST_LABEL}: "1" }\n    volumes: [data:/data]\nvolumes:\n  data:\n`,
  )
  saved(
    "rooted",
    "title: Rooted\ndescription: Binds the host's root\ncategories: [test]\n",
    `services:\n  app:\n    image: ${testImage()}\n    volumes: ["/:/host"]\n`,
  )
  browser = await openBrowser()
  page = browser.page
  const origin = new URL(svc.url).origin
  page.on("request", (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) elsewhere.push(r.url())
  })
}, 120_000)

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await fetch(`${svc.url}/api/stacks/ui-idler?volumes=true`, { method: "DELETE" }).catch(() => {})
  await svc?.stop()
  await cleanup(realEngine())
}, 60_000)

async function checks(name: string): Promise<string[]> {
  const faults: string[] = []
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    faults.push(...(await overflow(page)).map((f) => `${scheme}: ${f}`))
    faults.push(...(await violations(page)).map((v) => `${scheme}: ${v}`))
    await snap(page, scheme, name)
  }
  await page.emulateMedia({ colorScheme: null })
  await page.setViewportSize({ width: 390, height: 844 })
  faults.push(...(await overflow(page)).map((f) => `phone: ${f}`))
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    faults.push(...(await violations(page)).map((v) => `phone ${scheme}: ${v}`))
  }
  await page.emulateMedia({ colorScheme: null })
  await snap(page, "phone", name)
  await page.setViewportSize({ width: 1280, height: 860 })
  return faults
}

test("the catalog lists, searches and filters the templates; logos come from the service", async () => {
  await show(page, `${svc.url}/#/catalog`)
  await page.locator(".template-card").nth(25).waitFor()
  expect(await page.locator(".template-card").count()).toBeGreaterThanOrEqual(32)
  await page.getByLabel("Search the catalog").fill("photo library")
  await page.getByText("1 of").waitFor()
  expect(await page.locator(".template-card strong").allTextContents()).toEqual(["Immich"])
  await page.getByLabel("Search the catalog").fill("")
  await page.getByLabel("Category").selectOption("dns")
  await page.getByText("2 of").waitFor()
  expect(await checks("catalog")).toEqual([])
  await page.getByLabel("Category").selectOption("")
  expect(elsewhere).toEqual([])
})

test("a template's form, preview and install: a wrong value said beside its field, a secret shown once", async () => {
  await show(page, `${svc.url}/#/catalog/saved/idler`)
  await page.locator("#var-PORT").fill("70000")
  await page.getByRole("button", { name: "Preview" }).click()
  // The browser's own check stops a port over its maximum; one it lets through is the service's to refuse.
  await page.locator("#var-PORT").evaluate((el: HTMLInputElement) => el.removeAttribute("max"))
  await page.getByRole("button", { name: "Preview" }).click()
  await page.locator("#var-PORT-error").getByText("a port from 1 to 65535").waitFor()
  expect(await page.locator("#var-PORT").getAttribute("aria-invalid")).toBe("true")
  await page.locator("#var-PORT").fill("18080")
  await page.locator("#install-name").fill("ui-idler")
  await page.locator("#var-LEVEL").selectOption("high")
  expect(await page.locator("#var-PIN").getAttribute("type")).toBe("password")
  await page.getByRole("button", { name: "Preview" }).click()
  await page.getByText("The guard passes it").waitFor()
  await page.locator(".compose-view").getByText("${LEVEL}").first().waitFor()
  expect(await checks("catalog-preview")).toEqual([])
  await page.getByRole("button", { name: "Install" }).click()
  await page.getByText("shown this once").waitFor()
  const pin = await page.locator(".secrets input").inputValue()
  expect(pin).toMatch(/^[A-Za-z0-9_-]{32}$/)
  await page.getByText("Listening on 18080").waitFor()
  expect(await checks("catalog-installed")).toEqual([])
  await show(page, `${svc.url}/#/stacks/ui-idler`)
  await page.getByText("Installed from").waitFor()
  expect(await page.content()).not.toContain(pin)
  await page.getByRole("button", { name: "Save as template: ui-idler" }).click()
  await page.getByText("Saved as the template ui-idler").waitFor()
  expect(elsewhere).toEqual([])
})

test("a template the guard refuses offers no install", async () => {
  await show(page, `${svc.url}/#/catalog/saved/rooted`)
  await page.locator("#install-name").fill("ui-rooted")
  await page.getByRole("button", { name: "Preview" }).click()
  await page.getByText("The guard refuses it (").waitFor()
  expect(await page.getByRole("button", { name: "Install" }).isDisabled()).toBe(true)
})
