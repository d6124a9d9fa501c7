// The pages of the web UI over a seeded demo (headless Chromium against the real service and the
// private engine): the lists' search, filters and sort kept in the address, a bulk stop with its one
// confirmation, the offers to adopt; then every page at 1280 and 390 px with nothing reaching out of
// the viewport, and axe-core's check of each in light and dark with no serious or critical
// violation. Screenshots of each page in light and dark, and at a phone's width, go to
// docs/screenshots/{light,dark,phone}/ with UPDATE_SCREENSHOTS=1 (else to a temporary folder, printed).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { composeByHand } from "../support/compose-cli.ts"
import { fixture, standInPath } from "../support/scanners.ts"
import { startGitServer, type GitServer } from "../support/git-server.ts"
import { netnsA, startRegistry, veth, type TestRegistry } from "../support/netns.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { overflow, shotsPrinted, snap, violations } from "../support/page-checks.ts"

const SLOW = 180_000
const LOOP = `["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]`
const service = (name: string) =>
  `  ${name}:\n    image: ${testImage()}\n    command: ${LOOP}\n    labels: { ${TEST_LABEL}: "1" }\n`
const compose = (...services: string[]) =>
  `services:\n${services.map(service).join("")}volumes:\n  data:\n    labels: { ${TEST_LABEL}: "1" }\n`
const withImage = (content: string, image: string) => content.replaceAll(`image: ${testImage()}`, `image: ${image}`)

// The demo: stacks running, degraded, stopped and from git, a compose project made by hand, plain containers.
const DEMO = { shop: "demo-shop", blog: "demo-blog", backup: "demo-backup", site: "demo-site", legacy: "demo-legacy" }
const PLAIN = ["demo-plain-1", "demo-plain-2"]

let engine: Engine
let svc: Service
let git: GitServer
let registry: TestRegistry
let link: Awaited<ReturnType<typeof veth>>
/** The shop's image at the registry, and the images made for it. */
let shopImage: string
const made: string[] = []
let browser: Browser
let page: Page
let scanners: string
let projects: string
let pageErrors: string[] = []

async function send(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

const go = async (hash: string) => {
  await show(page, `${svc.url}/#${hash}`)
  // Loaded: nothing in the page says it is still loading (a live log keeps its own status).
  await page.waitForFunction(() => !document.querySelector("main .loading"), null, { timeout: 15_000 }).catch(() => {})
}
const rowNames = () =>
  page.locator("main tbody tr td:nth-child(2) a, main tbody tr td:nth-child(2) > .mono").allTextContents()
const stackContainers = (name: string) =>
  engine.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${name}`] } })

/** An image of its own: the test image with one more file, made by a container and a commit, tagged `ref`. */
async function newImage(ref: string): Promise<string> {
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", "date > /version"],
    Labels: { [TEST_LABEL]: "1" },
  })
  await engine.containerAction(Id, "start")
  await engine.waitContainer(Id)
  const image = (
    await engine.commitContainer(Id, ref.slice(0, ref.lastIndexOf(":")), ref.slice(ref.lastIndexOf(":") + 1))
  ).Id
  await engine.removeContainer(Id, { force: true })
  made.push(image)
  return image
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  scanners = standInPath("trivy")
  // The service runs in the engine's namespace, beside a registry (its update checks ask it); the
  // browser and the git server reach it through a veth pair.
  const ns = netnsA()
  registry = await startRegistry(ns)
  link = await veth(ns)
  git = startGitServer({ hostname: link.outside })
  svc = await startService(
    {
      DOCKER_HOST: engineHost(),
      SVC_STATS_INTERVAL: "1",
      PATH: `${scanners}:${process.env.PATH}`,
      // A recorded report with one critical finding: the stacks of the test image show it.
      STAND_IN_REPORT: fixture("trivy-debian-buster.json"),
    },
    { host: link.inside, cmd: ["ip", "netns", "exec", ns, "bun", join(import.meta.dir, "../../server.ts")] },
  )
  // The shop runs an image of the registry's that has a newer version there.
  shopImage = `${registry.host}/demo/shop:1`
  const v1 = await newImage(shopImage)
  await engine.pushImage(shopImage)
  await newImage(shopImage)
  await engine.pushImage(shopImage)
  await engine.tagImage(v1, shopImage.slice(0, shopImage.lastIndexOf(":")), "1")
  await Promise.all([
    send("POST", "/stacks", { name: DEMO.shop, content: withImage(compose("web", "worker"), shopImage) }),
    send("POST", "/stacks", { name: DEMO.blog, content: compose("web", "db") }),
    send("POST", "/stacks", { name: DEMO.backup, content: compose("agent") }),
    ...PLAIN.map((n) => runContainer(engine, n, "trap 'exit 0' TERM; while true; do sleep 1; done")),
  ])
  await send("POST", `/stacks/${DEMO.shop}/check-update`)
  const repo = await git.repo("site")
  await repo.commit({ "compose.yaml": compose("web") })
  await send("PUT", `/stacks/${DEMO.site}/git`, { url: repo.url })
  // degraded: one of its two services stopped; stopped: all of it
  await engine.containerAction(
    (await stackContainers(DEMO.blog)).find((c) => c.Labels["com.docker.compose.service"] === "db")!.Id,
    "stop",
  )
  for (const c of await stackContainers(DEMO.backup)) await engine.containerAction(c.Id, "stop")
  projects = mkdtempSync(join(tmpdir(), "hm-ui-pages-"))
  mkdirSync(join(projects, DEMO.legacy))
  writeFileSync(join(projects, DEMO.legacy, "compose.yaml"), `services:\n${service("app")}`)
  composeByHand(join(projects, DEMO.legacy), DEMO.legacy, "up", "-d")
  await send("POST", "/images/scan")
  const scanned = async () =>
    ((await send("GET", "/images")) as { tags: string[]; scan: unknown }[])
      .filter((i) => i.tags.includes(testImage()) || i.tags.includes(shopImage))
      .every((i) => i.scan)
  for (let i = 0; i < 150 && !(await scanned()); i++) await Bun.sleep(200)
  browser = await openBrowser()
  ;({ page, pageErrors } = browser)
}, SLOW)

afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  for (const name of Object.values(DEMO))
    await fetch(`${svc.url}/api/stacks/${name}?volumes=true`, { method: "DELETE" }).catch(() => {})
  if (projects) composeByHand(join(projects, DEMO.legacy), DEMO.legacy, "down")
  await svc?.stop()
  git?.stop()
  await link?.remove()
  await registry?.stop()
  await cleanup(engine)
  for (const image of made) await engine.removeImage(image, { force: true }).catch(() => {})
  rmSync(scanners, { recursive: true, force: true })
  if (projects) rmSync(projects, { recursive: true, force: true })
  shotsPrinted()
}, SLOW)

describe("lists", () => {
  test(
    "the stack list shows health, resource use, CVE badges and the git marker; search, filters and sort come back from the address",
    async () => {
      await go("/stacks?needs=update")
      expect(await rowNames()).toEqual([DEMO.shop])
      await go("/stacks?health=degraded")
      expect(await page.locator("#stacks-filter-health").inputValue()).toBe("degraded")
      const row = (name: string) =>
        page.locator("main tbody tr", { has: page.getByRole("link", { name, exact: true }) })
      await row(DEMO.blog).waitFor()
      expect(await page.locator("main tbody tr").count()).toBe(1)
      expect(await row(DEMO.blog).locator(".badge").first().textContent()).toBe("degraded")

      await go("/stacks")
      await row(DEMO.site).locator(".badge.marker", { hasText: "git" }).waitFor()
      expect(await row(DEMO.site).locator(".badge.marker").getAttribute("title")).toContain("site.git")
      expect(await row(DEMO.backup).locator(".badge").first().textContent()).toBe("stopped")
      expect(await row(DEMO.shop).locator(".sev-critical").textContent()).toBe("1 critical")
      expect(await row(DEMO.shop).locator(".badge.update").getAttribute("title")).toBe(`Newer: ${shopImage}`)
      expect(await page.locator("main .badge.update").count()).toBe(1)
      expect(await row(DEMO.legacy).locator(".badge.marker").textContent()).toBe("not managed")
      // CPU and memory: each running stack's last hour and its figure now
      await row(DEMO.shop).locator("svg.spark-cpu").waitFor()
      expect(await row(DEMO.shop).locator(".spark-value").last().textContent()).toMatch(/B$/)

      // Typed and picked in the page, the state goes to the address; a reload brings it back.
      await page.getByLabel("Search stacks").fill("demo")
      await page.locator("#stacks-filter-kind").selectOption("managed")
      await page.getByRole("button", { name: "Name", exact: true }).click()
      expect(page.url()).toEndWith("#/stacks?q=demo&kind=managed&sort=-name")
      const order = [DEMO.site, DEMO.shop, DEMO.blog, DEMO.backup]
      expect(await rowNames()).toEqual(order)
      await page.reload()
      await page.locator("main tbody tr").first().waitFor()
      expect(await rowNames()).toEqual(order)
      expect(await page.getByLabel("Search stacks").inputValue()).toBe("demo")
      expect(await page.locator("#stacks-filter-kind").inputValue()).toBe("managed")
      expect(await page.locator("th[aria-sort]").textContent()).toContain("Name")
      expect(await page.locator("th[aria-sort]").getAttribute("aria-sort")).toBe("descending")
      expect(await page.locator(".list-count").textContent()).toBe(`4 of 5 stacks`)

      // A stopped stack started and stopped again from the selection: each the same dialog, each result named.
      const dialog = page.locator("dialog.modal")
      for (const [verb, state, done] of [
        ["Start", "running", "started"],
        ["Stop", "exited", "stopped"],
      ] as const) {
        await page.getByLabel(`Select ${DEMO.backup}`).check()
        await page.getByRole("button", { name: `${verb} (1)`, exact: true }).click()
        expect(await dialog.locator(".bulk-list li .mono").allTextContents()).toEqual([DEMO.backup])
        await dialog.getByRole("button", { name: verb, exact: true }).click()
        await dialog.locator(".bulk-summary", { hasText: `1 ${done}.` }).waitFor()
        await dialog.getByRole("button", { name: "Close" }).click()
        expect((await stackContainers(DEMO.backup)).map((c) => c.State)).toEqual([state])
      }
      await row(DEMO.backup).locator(".badge", { hasText: "stopped" }).waitFor()
    },
    SLOW,
  )

  test(
    "containers: a shared link's search and sort; two stopped at once, the confirmation naming both, each one's result shown",
    async () => {
      await go("/containers?q=demo-plain&sort=-name")
      expect(await rowNames()).toEqual([...PLAIN].reverse())
      await page.getByLabel("Select all containers shown").check()
      await page
        .getByRole("region", { name: "Actions on the selected containers" })
        .getByRole("button", { name: "Stop (2)" })
        .click()
      const dialog = page.locator("dialog.modal")
      expect(await dialog.locator("h2").textContent()).toBe("Stop 2 containers")
      expect(await dialog.locator(".bulk-list li .mono").allTextContents()).toEqual([...PLAIN].reverse())
      await dialog.getByRole("button", { name: "Stop", exact: true }).click()
      await dialog.locator(".bulk-summary", { hasText: "2 stopped." }).waitFor()
      expect(await dialog.locator(".bulk-result").allTextContents()).toEqual(["stopped", "stopped"])
      await dialog.getByRole("button", { name: "Close" }).click()
      for (const name of PLAIN) expect((await engine.inspectContainer(name)).State.Status).toBe("exited")
      // filtered by state, the stopped ones; started again the same way
      await page.locator("#containers-filter-state").selectOption("exited")
      await page.locator("main tbody tr", { hasText: PLAIN[0] }).waitFor()
      expect(page.url()).toContain("state=exited")
      await page.getByLabel(`Select ${PLAIN[0]}`).check()
      await page.getByLabel(`Select ${PLAIN[1]}`).check()
      await page.getByRole("button", { name: "Start (2)" }).click()
      await dialog.getByRole("button", { name: "Start", exact: true }).click()
      await dialog.locator(".bulk-summary", { hasText: "2 started." }).waitFor()
      await dialog.getByRole("button", { name: "Close" }).click()
      for (const name of PLAIN) expect((await engine.inspectContainer(name)).State.Status).toBe("running")
    },
    SLOW,
  )

  test(
    "what runs outside any stack is offered for adoption: the plain containers together, the compose project made by hand",
    async () => {
      await go("/containers")
      await page.locator(".offer").getByRole("link", { name: "Show them" }).click()
      await page.waitForURL("**/#/containers?stack=none")
      // The list drawn again with the filter (the address changes before its page is drawn).
      await page.locator(".list-count", { hasText: / of \d+ containers$/ }).waitFor()
      expect((await rowNames()).sort()).toEqual(PLAIN)
      await page.getByLabel("Select all containers shown").check()
      await page.getByRole("button", { name: "Adopt… (2)" }).click()
      const dialog = page.locator("dialog.modal")
      expect(await dialog.locator("h2").textContent()).toBe("Adopt 2 containers")
      await dialog.locator("#adopt-stack").fill("demo-adopted")
      await dialog.getByRole("button", { name: "Review" }).click()
      const plan = dialog.getByLabel("Generated compose file")
      await plan.waitFor()
      expect((await dialog.locator(".plan li").allTextContents()).filter((t) => t.includes("←")).length).toBe(2)
      await dialog.getByRole("button", { name: "Close" }).click()

      await go("/stacks")
      await page.locator(".offer").getByRole("link", { name: "Show them" }).click()
      await page.waitForURL("**/#/stacks?kind=unmanaged")
      // The list drawn again with the filter (the address changes before its page is drawn).
      await page.locator(".list-count", { hasText: / of \d+ stacks$/ }).waitFor()
      expect(await rowNames()).toEqual([DEMO.legacy])
      await page.getByRole("button", { name: `Adopt ${DEMO.legacy}` }).click()
      expect(await dialog.locator("h2").textContent()).toBe(`Adopt ${DEMO.legacy}`)
      await dialog.getByRole("button", { name: "Close" }).click()
    },
    SLOW,
  )
})

const PAGES: [name: string, hash: () => Promise<string>][] = [
  ["dashboard", async () => "/"],
  ["containers", async () => "/containers"],
  ["container-logs", async () => `/containers/${PLAIN[0]}/logs`],
  ["stacks", async () => "/stacks"],
  ["stack", async () => `/stacks/${DEMO.shop}`],
  ["stack-compose", async () => `/stacks/${DEMO.shop}/compose`],
  ["stack-env", async () => `/stacks/${DEMO.shop}/env`],
  ["stack-versions", async () => `/stacks/${DEMO.shop}/versions`],
  ["stack-updates", async () => `/stacks/${DEMO.shop}/updates`],
  ["stack-resources", async () => `/stacks/${DEMO.shop}/resources`],
  ["stack-new", async () => "/stacks-new"],
  ["images", async () => "/images"],
  ["volumes", async () => "/volumes"],
  [
    "volume-files",
    async () => {
      await realEngine().createVolume("demo-files", { [TEST_LABEL]: "1" })
      return "/volumes/demo-files/files"
    },
  ],
  ["container-files", async () => `/containers/${PLAIN[0]}/files`],
  ["container-changes", async () => `/containers/${PLAIN[0]}/changes`],
  ["host", async () => "/host"],
  ["networks", async () => "/networks"],
  ["prune", async () => "/prune"],
  ["backups", async () => "/backups"],
  ["cluster", async () => "/cluster"],
  ["swarm", async () => "/swarm"],
  ["speech", async () => "/speech"],
]

describe("every page", () => {
  test(
    "at 1280 px, light: nothing reaches out of the viewport, axe-core finds no serious or critical violation; screenshots",
    async () => {
      await page.emulateMedia({ colorScheme: "light" })
      const faults: string[] = []
      for (const [name, hash] of PAGES) {
        await go(await hash())
        faults.push(
          ...(await overflow(page)).map((f) => `${name}: ${f}`),
          ...(await violations(page)).map((v) => `${name}: ${v}`),
        )
        await snap(page, "light", name)
      }
      expect(faults).toEqual([])
    },
    SLOW,
  )

  test(
    "dark: axe-core finds no serious or critical violation (the colours' contrast among them); screenshots",
    async () => {
      await page.emulateMedia({ colorScheme: "dark" })
      const faults: string[] = []
      for (const [name, hash] of PAGES) {
        await go(await hash())
        faults.push(...(await violations(page)).map((v) => `${name}: ${v}`))
        await snap(page, "dark", name)
      }
      await page.emulateMedia({ colorScheme: null })
      expect(faults).toEqual([])
    },
    SLOW,
  )

  test(
    "at 390 px: nothing reaches out of the viewport; screenshots",
    async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      const faults: string[] = []
      for (const [name, hash] of PAGES) {
        await go(await hash())
        faults.push(...(await overflow(page)).map((f) => `${name}: ${f}`))
        await snap(page, "phone", name)
      }
      await page.setViewportSize({ width: 1280, height: 860 })
      expect(faults).toEqual([])
    },
    SLOW,
  )
})
