// The alerts page in Chromium against the real service, light and dark: a channel added from its
// service URL and one from a form, a test sent (it reaches the stand-in), the history showing it,
// a rule added and muted; no credential anywhere in the page; axe-core finds no serious violation.
import { afterAll, beforeAll, expect, test } from "bun:test"
import type { Page } from "playwright-core"
import { engineHost } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { ALL_SECRETS, channelUrls, startReceivers, TOKENS, type Receivers } from "../support/receivers.ts"
import { overflow, shotsPrinted, snap, violations } from "../support/page-checks.ts"

let svc: Service
let browser: Browser
let page: Page
let r: Receivers

beforeAll(async () => {
  r = startReceivers()
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_ALERT_API_URLS: `discord=${r.url},telegram=${r.url}` })
  browser = await openBrowser()
  page = browser.page
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await svc?.stop()
  r?.stop()
  shotsPrinted()
})

test("a channel from its URL and one from a form, a test sent and seen in the history, a rule added and muted", async () => {
  await show(page, `${svc.url}/#/alerts`)
  await page.getByLabel("Name", { exact: true }).first().fill("ops hook")
  await page.locator("#channel-url").fill(channelUrls(r).webhook)
  await page.getByRole("button", { name: "Add channel" }).click()
  await page.getByRole("cell", { name: "ops hook", exact: true }).waitFor()

  await page.locator("#channel-how").selectOption("discord")
  await page.locator("#channel-name").fill("team chat")
  await page.locator("#channel-f-webhook_id").fill(TOKENS.discord.id)
  await page.locator("#channel-f-token").fill(TOKENS.discord.token)
  await page.getByRole("button", { name: "Add channel" }).click()
  await page.getByRole("cell", { name: "team chat", exact: true }).waitFor()
  expect(await page.getByRole("cell", { name: "discord://***@112233445566778899" }).count()).toBe(1)

  await page.getByRole("button", { name: "Send a test to team chat" }).click()
  await page.getByText("The test reached team chat").waitFor()
  await page.getByRole("table", { name: "Alert channels" }).getByText("ok", { exact: true }).waitFor()
  expect(r.received.filter((x) => x.kind === "discord")).toHaveLength(1)
  const history = page.getByRole("table", { name: "Alert history" })
  await history.getByRole("cell", { name: "team chat", exact: true }).waitFor()
  expect(await history.getByText("sent").count()).toBe(1)

  await page.locator("#rule-name").fill("crashes")
  await page.locator("#rule-kind").selectOption("container_died")
  await page.getByRole("group", { name: "Channels" }).getByLabel("team chat").check()
  await page.getByRole("button", { name: "Add rule" }).click()
  const rules = page.getByRole("table", { name: "Alert rules" })
  await rules.getByRole("cell", { name: "a container exited with a non-zero code" }).waitFor()
  await page.getByRole("button", { name: "Mute crashes for an hour" }).click()
  await rules.getByText("muted", { exact: true }).waitFor()

  const html = await page.content()
  for (const s of ALL_SECRETS) expect(html).not.toContain(s)
  expect(browser.pageErrors.splice(0)).toEqual([])
}, 120_000)

test.each(["light", "dark"] as const)(
  "%s: axe-core finds no serious or critical violation, nothing reaches out of the viewport",
  async (scheme) => {
    await page.emulateMedia({ colorScheme: scheme })
    await show(page, `${svc.url}/#/alerts`)
    await page.getByRole("table", { name: "Alert history" }).waitFor()
    expect(await violations(page)).toEqual([])
    expect(await overflow(page)).toEqual([])
    await snap(page, scheme, "alerts")
    await page.emulateMedia({ colorScheme: "light" })
  },
  60_000,
)

test("at a phone's width nothing reaches out of the viewport", async () => {
  await page.setViewportSize({ width: 390, height: 844 })
  await show(page, `${svc.url}/#/alerts`)
  await page.getByRole("table", { name: "Alert history" }).waitFor()
  expect(await overflow(page)).toEqual([])
  await snap(page, "phone", "alerts")
  await page.setViewportSize({ width: 1280, height: 860 })
}, 60_000)
