// The one editor in headless Chromium against the real service: loaded when an editor opens (the
// first page does not load its script), the compose specification's key completion, hover help and
// inline errors, compose's own refusal shown at the line it names, Tab leaving the editor as it
// leaves a textarea, and a version compared side by side with the current compose file.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"

let svc: Service
let browser: Browser
const engine = () => realEngine()
const STACK = `hmeditor${process.pid}`

beforeAll(async () => {
  await cleanup(engine())
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_TRANSFER_IMAGE: testImage() })
  browser = await openBrowser()
}, 120_000)

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await fetch(`${svc.url}/api/stacks/${STACK}`, { method: "DELETE" }).catch(() => {})
  await browser?.close()
  await svc?.stop()
  await cleanup(engine())
})

const compose = (cmd: string) =>
  `services:\n  app:\n    image: ${testImage()}\n    command: ["sh", "-c", "${cmd}"]\n    labels: { ${TEST_LABEL}: "1" }\n`

test("the editor's script is loaded only when an editor opens", async () => {
  const page = browser.page
  const scripts: string[] = []
  page.on("request", (r) => r.resourceType() === "script" && scripts.push(r.url()))
  await show(page, `${svc.url}/#/volumes`)
  const before = scripts.length
  await show(page, `${svc.url}/#/stacks-new`)
  await page.locator(".cm-content").waitFor()
  expect(scripts.length).toBeGreaterThan(before)
})

test("completion, hover help and inline errors from the compose specification; Tab leaves the editor", async () => {
  const page = browser.page
  await show(page, `${svc.url}/#/stacks-new`)
  const content = page.getByLabel("Compose file")
  await page.locator(".cm-content").waitFor()
  await content.fill("services:\n  web:\n    restart: always\n    ")
  await page.keyboard.press("End")
  await page.keyboard.type("heal")
  await page.keyboard.press("Control+Space")
  await page.locator(".cm-tooltip-autocomplete li", { hasText: "healthcheck" }).waitFor()
  await page.keyboard.press("Escape")
  // A key the specification does not have is marked where it is.
  await content.fill("services:\n  web:\n    image: x\n    imagee: y\n")
  await page.locator(".cm-lint-marker-error").first().waitFor()
  await page.locator(".cm-lintRange-error").first().hover()
  await page
    .locator(".cm-tooltip", { hasText: /imagee|additional/i })
    .first()
    .waitFor()
  // Hover help over a key.
  await page.locator(".cm-line", { hasText: "image: x" }).locator("text=image").first().hover()
  await page.locator(".cm-help").first().waitFor()
  // Tab leaves the editor for the next control.
  await content.focus()
  await page.keyboard.press("Tab")
  expect(await page.evaluate(() => document.activeElement?.classList.contains("cm-content"))).toBe(false)
})

test("compose's own refusal is shown at the line it names", async () => {
  const page = browser.page
  await show(page, `${svc.url}/#/stacks-new`)
  await page.locator("#stack-name").fill(`${STACK}bad`)
  await page.locator(".cm-content").waitFor()
  await page.getByLabel("Compose file").fill("services:\n  app:\n    image: x\n   bad: [\n")
  await page.getByRole("button", { name: "Deploy" }).click()
  await page.locator("main .error").waitFor()
  await page.locator(".cm-lint-marker-error").first().waitFor()
})

test("a version is compared side by side with the current compose file", async () => {
  for (const cmd of ["sleep 600", "sleep 601"]) {
    const res = await fetch(`${svc.url}/api/stacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: STACK, content: compose(cmd) }),
    })
    expect(res.status).toBeLessThan(300)
  }
  const page = browser.page
  await show(page, `${svc.url}/#/stacks/${STACK}/versions`)
  await page.getByRole("button", { name: "Compare version 1 with the current one" }).click()
  await page.locator(".cm-mergeView").waitFor()
  expect(await page.locator(".cm-mergeView .cm-changedLine").count()).toBeGreaterThanOrEqual(2)
  expect(await page.locator(".cm-mergeView").textContent()).toContain("sleep 601")
})
