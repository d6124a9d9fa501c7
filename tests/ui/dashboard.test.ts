// The dashboard and the UI's fit and finish in Chromium, against the real service and the private
// engine: what needs attention (a degraded stack, a critical CVE of its image, an update available,
// an offline node), each card leading to where it is fixed, the host's hour as sparklines; the dark
// theme following the system; the keyboard ("/" searches, "g s" goes to stacks, "?" lists the keys,
// Esc closes a dialog); a swarm service below its replicas on the test swarm's manager; a long action marked busy that ends in a message, an error in words.
// The update record and the offline node are written into the data directory before the service
// starts (a registry and a second server are not needed to show them).
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { fixture, standInPath } from "../support/scanners.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { serviceSpec, swarmManager, swarmManagerHost } from "../support/swarm.ts"

const STACK = `dash${process.pid}`
const PLAIN = `hm-ui-dash-plain${process.pid}`
const LOOP = `["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]`
const COMPOSE = `services:\n${["web", "db"].map((s) => `  ${s}:\n    image: ${testImage()}\n    command: ${LOOP}\n    labels: { ${TEST_LABEL}: "1" }\n`).join("")}`
const SLOW = 180_000

let engine: Engine
let svc: Service
let browser: Browser
let page: Page
let scanners: string
let dataDir: string

async function send(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

const go = (hash: string) => show(page, `${svc.url}/#${hash}`)

/** The relative luminance (0 black, 1 white) of a CSS rgb() colour. */
function luminance(rgb: string): number {
  const [r, g, b] = rgb
    .match(/\d+(\.\d+)?/g)!
    .slice(0, 3)
    .map((c) => {
      const v = Number(c) / 255
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
    })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  scanners = standInPath("trivy")
  dataDir = mkdtempSync(join(tmpdir(), "hm-ui-dash-"))
  const image = (await engine.inspectImage(testImage())).Id
  // The registry serves a newer test image (as an update check would have recorded it); a node of the registry is offline.
  writeFileSync(
    join(dataDir, "updates.json"),
    JSON.stringify({
      images: {
        [testImage()]: {
          ref: testImage(),
          image,
          local_digests: [],
          remote_digest: `sha256:${"e".repeat(64)}`,
          update_available: true,
          checked_at: new Date().toISOString(),
          error: null,
        },
      },
      stacks: {},
    }),
  )
  writeFileSync(
    join(dataDir, "nodes.json"),
    JSON.stringify({
      gone: {
        name: "far-away",
        url: "http://127.0.0.1:9",
        status: "offline",
        error: "connection refused",
        server_id: "gone",
        registered_at: new Date().toISOString(),
        checked_at: new Date().toISOString(),
      },
    }),
  )
  svc = await startService(
    {
      DOCKER_HOST: engineHost(),
      SVC_STATS_INTERVAL: "1",
      PATH: `${scanners}:${process.env.PATH}`,
      // A recorded report with one critical finding.
      STAND_IN_REPORT: fixture("trivy-debian-buster.json"),
    },
    { dataDir },
  )
  await send("POST", "/stacks", { name: STACK, content: COMPOSE })
  const db = (
    await engine.listContainers({
      all: true,
      filters: { label: [`com.docker.compose.project=${STACK}`, "com.docker.compose.service=db"] },
    })
  )[0]!
  await engine.containerAction(db.Id, "stop")
  await runContainer(engine, PLAIN, "trap 'exit 0' TERM; while true; do sleep 1; done")
  await send("POST", `/images/${encodeURIComponent(image)}/scan`)
  for (let i = 0; i < 150 && !(await send("GET", `/images/${encodeURIComponent(image)}/scan`)).counts; i++)
    await Bun.sleep(200)
  browser = await openBrowser()
  page = browser.page
}, SLOW)

afterEach(async () => {
  await page.emulateMedia({ colorScheme: "light" })
  await page.setViewportSize({ width: 1280, height: 860 })
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await fetch(`${svc?.url}/api/stacks/${STACK}`, { method: "DELETE" }).catch(() => {})
  await svc?.stop()
  await cleanup(engine)
  rmSync(scanners, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

test(
  "the dashboard says what needs attention, each card leading to where it is fixed; the host's hour as sparklines",
  async () => {
    await go("/")
    const card = (text: string) => page.locator("main a.issue", { hasText: text })
    await card(`${STACK} is degraded`).waitFor()
    expect(await page.locator(".health-status").textContent()).toMatch(/\d+ things need attention\./)
    expect(await card(`${STACK} is degraded`).textContent()).toContain("1 of 2 containers running")
    expect(await card(`${testImage()}: 1 critical`).textContent()).toContain(`used by ${STACK}`)
    expect(await card(`${testImage()}: an update is available`).getAttribute("href")).toBe(`#/stacks/${STACK}/updates`)
    expect(await card("Node far-away is offline").getAttribute("href")).toBe("#/cluster")
    const tiles = page.locator("main .tiles")
    expect(await tiles.locator(".tile", { hasText: "stacks" }).locator(".badge.state-degraded").textContent()).toBe(
      "1 degraded",
    )
    expect(await tiles.locator(".tile", { hasText: "nodes online" }).locator(".stat-n").textContent()).toBe("0/1")

    // The host's hour: CPU, memory and the data directory's disk, drawn once there are two rounds.
    expect(await page.locator(".host-cell .host-title").allTextContents()).toEqual([
      "CPU used by containers",
      "Memory used by containers",
      "Disk (data directory)",
    ])
    await page
      .waitForFunction(() => document.querySelectorAll(".host-cell svg.spark path[d*='L']").length === 3, null, {
        timeout: 45_000,
        polling: 1000,
      })
      .catch(async () => {
        await page.reload()
        await page.waitForFunction(() => document.querySelectorAll(".host-cell svg.spark path[d*='L']").length === 3)
      })
    expect(await page.locator(".host-cell .host-now").last().textContent()).toMatch(/B of .*B$/)

    // A card goes where the thing is fixed.
    await card(`${testImage()}: 1 critical`).click()
    await page.waitForURL(`**/#/images?q=${encodeURIComponent(testImage())}`)
    await page.locator("main tbody tr", { hasText: testImage() }).locator(".sev-critical").waitFor()
    await page.goBack()
    await card(`${STACK} is degraded`).click()
    await page.waitForURL(`**/#/stacks/${STACK}`)
    await page.locator("main h1", { hasText: STACK }).waitFor()

    // At a phone's width nothing of the dashboard reaches out of the viewport, the header with its server switcher (the registry has a node) neither.
    await page.setViewportSize({ width: 390, height: 844 })
    await go("/")
    await card(`${STACK} is degraded`).waitFor()
    expect(await page.locator("#node").isVisible()).toBe(true)
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > 390.5 && !el.closest(".table-wrap, .events"))
        .map((el) => `${el.tagName.toLowerCase()}.${el.getAttribute("class") ?? ""}`),
    )
    expect(wide).toEqual([])
  },
  SLOW,
)

test("the dark theme follows the system's setting", async () => {
  await go("/")
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  await page.emulateMedia({ colorScheme: "dark" })
  expect(luminance(await background())).toBeLessThan(0.05)
  expect(luminance(await page.evaluate(() => getComputedStyle(document.body).color))).toBeGreaterThan(0.6)
  await page.emulateMedia({ colorScheme: "light" })
  expect(luminance(await background())).toBeGreaterThan(0.8)
})

test(
  "keyboard: / focuses the page's search, g s goes to the stacks, ? lists the keys, Esc closes a dialog",
  async () => {
    await go("/containers")
    await page.locator("main tbody tr").first().waitFor()
    await page.locator("main h1").click()
    await page.keyboard.press("/")
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).type)).toBe("search")
    await page.keyboard.type("dash-plain")
    await page.locator("main tbody tr", { hasText: PLAIN }).waitFor()
    expect(await page.locator("main tbody tr").count()).toBe(1)

    await page.locator("main h1").click()
    await page.keyboard.press("g")
    await page.keyboard.press("s")
    await page.waitForURL("**/#/stacks")
    await page.locator("main h1", { hasText: "Stacks" }).waitFor()

    await page.keyboard.press("?")
    const dialog = page.locator("dialog.modal[open]")
    expect(await dialog.locator("h2").textContent()).toBe("Keyboard shortcuts")
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })

    // A confirmation closed with Esc does nothing.
    await go(`/stacks/${STACK}`)
    await page.getByRole("button", { name: `Delete ${STACK}`, exact: true }).click()
    await dialog.waitFor()
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })
    expect((await send("GET", "/stacks")).some((s: { name: string }) => s.name === STACK)).toBe(true)
  },
  SLOW,
)

test(
  "a long action shows that it runs and ends in a message; an error says what failed in words, with the service's message",
  async () => {
    await go(`/containers?q=${PLAIN}`)
    const stop = page.getByRole("button", { name: `Stop ${PLAIN}`, exact: true })
    await stop.waitFor()
    // Whether the button was marked busy while the action ran (however briefly).
    await page.evaluate(() => {
      const seen = ((window as any).busySeen = [] as string[])
      new MutationObserver((changes) =>
        changes.forEach(
          (c) =>
            (c.target as Element).getAttribute("aria-busy") === "true" &&
            seen.push((c.target as Element).getAttribute("aria-label") ?? ""),
        ),
      ).observe(document.body, { subtree: true, attributeFilter: ["aria-busy"] })
    })
    await stop.click()
    await page.locator("#toasts .toast", { hasText: `Stop ${PLAIN}: done` }).waitFor()
    expect(await page.evaluate(() => (window as any).busySeen)).toContain(`Stop ${PLAIN}`)
    expect((await engine.inspectContainer(PLAIN)).State.Status).toBe("exited")

    await page.goto(`${svc.url}/#/stacks/no-such-stack`)
    const error = page.locator("main .error").first()
    await error.waitFor()
    expect(await error.textContent()).toMatch(/^Not found: no stack named no-such-stack \(404 [a-z_]+\)/)
  },
  SLOW,
)

test(
  "on a swarm manager, a service below its replicas is a card leading to the service",
  async () => {
    const manager = swarmManager()
    const name = `uidash${process.pid}`
    // Its tasks wait for a node with a label none has: none runs.
    const spec = serviceSpec(name, 2)
    spec.TaskTemplate.Placement = { Constraints: ["node.labels.hm-nowhere==1"] }
    const { ID } = await manager.createService(spec)
    const onSwarm = await startService({ DOCKER_HOST: swarmManagerHost() })
    try {
      await page.goto(`${onSwarm.url}/#/`)
      const card = page.locator("main a.issue", { hasText: `${name}: 0 of 2 replicas running` })
      await card.waitFor()
      expect(
        Number(await page.locator("main .tile", { hasText: "below their replicas" }).locator(".stat-n").textContent()),
      ).toBeGreaterThanOrEqual(1)
      expect(await card.getAttribute("href")).toBe(`#/swarm/services/${ID}`)
      await card.click()
      await page.getByRole("heading", { name: "Tasks" }).waitFor()
    } finally {
      await onSwarm.stop()
      await manager.removeService(ID).catch(() => {})
    }
  },
  SLOW,
)
