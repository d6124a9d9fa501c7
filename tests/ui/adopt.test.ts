// Adopting from the web UI (headless Chromium against the real service and the private engine): a
// compose project brought up by hand shows "Adopt…" on the stacks page, the plan and its file are
// reviewed, and the adoption keeps its containers; a plain container shows the generated file.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { composeByHand } from "../support/compose-cli.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, type Browser } from "../support/browser.ts"

const PROJECT = "hm-ui-adopt"
const PLAIN = "hm-ui-plain"
let engine: Engine
let svc: Service
let browser: Browser
let page: Page
let root: string
let pageErrors: string[] = []

const ids = async () =>
  (await engine.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${PROJECT}`] } })).map(
    (c) => c.Id,
  )

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  root = mkdtempSync(join(tmpdir(), "hm-ui-adopt-"))
  const dir = join(root, PROJECT)
  mkdirSync(dir)
  writeFileSync(
    join(dir, "compose.yaml"),
    `services:\n  web:\n    image: ${testImage()}\n    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]\n    environment:\n      API_TOKEN: \${API_TOKEN}\n    labels: { ${TEST_LABEL}: "1" }\n`,
  )
  writeFileSync(join(dir, ".env"), "API_TOKEN=ui-s3cret\n")
  composeByHand(dir, PROJECT, "up", "-d")
  await runContainer(engine, PLAIN, "trap 'exit 0' TERM; while true; do sleep 0.2; done")
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_BIND_ROOTS: root })
  browser = await openBrowser()
  ;({ page, pageErrors } = browser)
}, 120_000)

afterAll(async () => {
  await fetch(`${svc.url}/api/stacks/${PROJECT}`, { method: "DELETE" }).catch(() => {})
  await browser?.close()
  await svc?.stop()
  await cleanup(engine)
  rmSync(root, { recursive: true, force: true })
}, 60_000)

test("an unmanaged stack is adopted from the stacks page after review, keeping its containers", async () => {
  const before = await ids()
  await page.goto(`${svc.url}/#/stacks`)
  await page.getByRole("button", { name: `Adopt ${PROJECT}` }).click()
  const dialog = page.locator("dialog.modal")
  await dialog.getByRole("button", { name: "Review" }).click()
  await dialog.getByText("No blockers: the adoption can go ahead.").waitFor()
  expect(await dialog.locator(".plan li", { hasText: "web:" }).textContent()).toBe("web: kept (same containers)")
  expect(await dialog.locator(".plan li", { hasText: "API_TOKEN" }).textContent()).toBe("API_TOKEN (secret)")
  expect(await dialog.getByLabel("Generated compose file").textContent()).toContain("${API_TOKEN}")
  expect(await dialog.textContent()).not.toContain("ui-s3cret")
  await dialog.getByRole("button", { name: "Adopt", exact: true }).click()
  await page.waitForURL(`**/#/stacks/${PROJECT}`)
  await page.locator(".page-head", { hasText: "version 1" }).waitFor()
  expect(await ids()).toEqual(before)
  expect(pageErrors).toEqual([])
}, 180_000)

test("a plain container shows Adopt… and the generated compose file for review", async () => {
  await page.goto(`${svc.url}/#/containers`)
  await page.getByRole("button", { name: `Adopt ${PLAIN}` }).click()
  const dialog = page.locator("dialog.modal")
  await dialog.locator("#adopt-stack").fill("hm-ui-plain-stack")
  await dialog.getByRole("button", { name: "Review" }).click()
  expect(await dialog.getByLabel("Generated compose file").textContent()).toContain(`image: ${testImage()}`)
  await dialog.getByRole("button", { name: "Close" }).click()
  expect(await page.getByRole("button", { name: `Adopt ${PROJECT}` }).count()).toBe(0)
  expect(pageErrors).toEqual([])
}, 120_000)
