// The web UI end to end: headless Chromium (Debian's) driven by playwright-core against the real
// service and the private engine. Each test sets up what it needs (its own stacks and containers,
// made through the API), so any one runs alone. Screenshots of the main pages go to docs/screenshots/.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { fixture, standInPath } from "../support/scanners.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { chartFaults, recordCanvasText } from "../support/charts.ts"

// Each run saves its screenshots in a temporary folder (printed); UPDATE_SCREENSHOTS=1 refreshes the set in docs/screenshots/.
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dir, "../../docs/screenshots")
  : mkdtempSync(join(tmpdir(), "hm-screenshots-"))
const STACK = `uitest${process.pid}`
const SECRET = "s3cret-value-42"
const COMPOSE = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; i=0; while true; do i=$$((i+1)); echo tick $$i; sleep 0.5; done"]
    environment:
      API_TOKEN: \${API_TOKEN:-none}
    volumes:
      - ./data:/data
      - cache:/cache
    labels:
      ${TEST_LABEL}: "1"
volumes:
  cache:
    labels:
      ${TEST_LABEL}: "1"
`
const SLOW = 180_000

let engine: Engine
let svc: Service
let member: Service | undefined
let browser: Browser
let page: Page
let scanners: string
let pageErrors: string[] = []
const stacks: string[] = []

async function send(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** A stack of its own for a test, named after what the test does; removed with its volumes after the test. */
function stackFor(what: string): string {
  const name = `${STACK}-${what}`
  stacks.push(name)
  return name
}

/** Deploys COMPOSE as a new stack of the test's own, through the API. */
async function deployed(what: string): Promise<string> {
  const name = stackFor(what)
  await send("POST", "/stacks", { name, content: COMPOSE })
  return name
}

const go = (hash: string) => show(page, `${svc.url}/#${hash}`)
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

const confirm = () => page.locator("dialog.modal").getByRole("button", { name: "Confirm" }).click()
const stackContainers = (name: string) =>
  engine.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${name}`] } })
const stackContainer = async (name: string) => (await stackContainers(name))[0]!
const envOf = async (id: string) => (await engine.inspectContainer(id)).Config.Env ?? []

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  mkdirSync(SHOTS, { recursive: true })
  scanners = standInPath("trivy")
  svc = await startService({
    DOCKER_HOST: engineHost(),
    SVC_TRANSFER_IMAGE: testImage(),
    SVC_TTS_ENGINE: "espeak",
    // Stats rounds every second, so charts have history and move within the test's patience.
    SVC_STATS_INTERVAL: "1",
    // The scanner is the stand-in that prints a recorded Trivy report.
    PATH: `${scanners}:${process.env.PATH}`,
    STAND_IN_REPORT: fixture("trivy-alpine-310.json"),
  })
  browser = await openBrowser()
  ;({ page, pageErrors } = browser)
}, 60_000)

// After each test its stacks go, and a script error on a page fails the test that opened it.
afterEach(async () => {
  await Promise.all(
    stacks
      .splice(0)
      .map((name) => fetch(`${svc.url}/api/stacks/${name}?volumes=true`, { method: "DELETE" }).catch(() => {})),
  )
  expect(pageErrors.splice(0)).toEqual([])
}, SLOW)

afterAll(async () => {
  await browser?.close()
  await svc?.stop()
  await member?.stop()
  await cleanup(engine)
  await cleanup(realEngine("b"))
  rmSync(scanners, { recursive: true, force: true })
  if (!process.env.UPDATE_SCREENSHOTS) console.log(`screenshots: ${SHOTS}`)
}, 60_000)

describe("web UI", () => {
  test("the dashboard shows the system summary and live engine events", async () => {
    await go("/")
    await page.getByText("Engine", { exact: true }).waitFor()
    expect(await page.locator(".facts dd").first().textContent()).toContain("Docker")
    await runContainer(engine, "hm-ui-dash", "sleep 30")
    await page.locator(".events li", { hasText: "hm-ui-dash" }).first().waitFor()
    // The summary follows the events: the new container is counted without a reload.
    await page.locator("main .states a.state-running").waitFor()
    await shot("dashboard-events")
  })

  test(
    "a bad compose file shows compose's own error",
    async () => {
      await go("/stacks-new")
      await page.locator("#stack-name").fill(stackFor("bad"))
      // The editor takes the textarea's place when its module loads: fill what stays, not what it replaces.
      await page.locator(".cm-content").waitFor()
      await page.getByLabel("Compose file").fill("services:\n  app:\n    restart: always\n")
      await page.getByRole("button", { name: "Deploy" }).click()
      const error = page.locator("main .error")
      await error.waitFor()
      expect(await error.textContent()).toContain("400")
      expect(await error.textContent()).toMatch(/app/)
    },
    SLOW,
  )

  test(
    "a stack deployed from the editor runs its containers",
    async () => {
      const name = stackFor("editor")
      await go("/stacks-new")
      await page.locator("#stack-name").fill(name)
      // The editor (CodeMirror, loaded when it opens) takes the place of the textarea, with the text.
      await page.locator(".cm-content").waitFor()
      await page.getByLabel("Compose file").fill(COMPOSE)
      expect(await page.locator(".cm-content .cm-line", { hasText: "services:" }).count()).toBe(1)
      await shot("stack-editor")
      await page.getByRole("button", { name: "Deploy" }).click()
      await page.waitForURL(`**/#/stacks/${name}`)
      await page.locator(".page-head .badge", { hasText: "running" }).first().waitFor()
      await page.locator("main table td", { hasText: "running" }).first().waitFor()
      expect((await stackContainer(name)).State).toBe("running")
      await shot("stack")
      await go("/stacks")
      await page.locator("main table a", { hasText: name }).waitFor()
      await shot("stacks")
    },
    SLOW,
  )

  test(
    "stack logs follow live, coloured by service, with search and pause",
    async () => {
      await go(`/stacks/${await deployed("logs")}/logs`)
      await page.locator(".log-line", { hasText: "tick" }).first().waitFor()
      expect(await page.locator(".log-line .log-service").first().textContent()).toBe("app")
      const count = () => page.locator(".log-line").count()
      await page.locator(".logs").getByRole("button", { name: "Pause" }).click()
      const atPause = await count()
      await page.locator(".log-status", { hasText: /Paused, ([2-9]|\d\d+) new lines held/ }).waitFor()
      expect(await count()).toBe(atPause)
      await page.locator(".logs").getByRole("button", { name: "Resume" }).click()
      await page.waitForFunction((n) => document.querySelectorAll(".log-line").length >= n + 2, atPause)
      await page.getByLabel("Filter log lines").fill("tick 1")
      const visible = await page.locator(".log-line:visible .log-text").allTextContents()
      expect(visible.length).toBeGreaterThan(0)
      expect(visible.every((t) => t.includes("tick 1"))).toBe(true)
      await shot("stack-logs")
    },
    SLOW,
  )

  test(
    "a container's logs follow and its terminal runs a command",
    async () => {
      const c = await stackContainer(await deployed("terminal"))
      await go(`/containers/${c.Id}/logs`)
      await page.locator(".log-line", { hasText: "tick" }).first().waitFor()
      await page.getByRole("link", { name: "Terminal", exact: true }).click()
      await page.locator(".term-status", { hasText: "Connected" }).waitFor()
      await page.locator(".xterm").click()
      await page.keyboard.type("echo hm-$((6*7))-done\n")
      await page.locator(".xterm-rows", { hasText: "hm-42-done" }).waitFor()
      await shot("terminal")
    },
    SLOW,
  )

  test(
    "a secret is edited hidden, pending until applied",
    async () => {
      const name = await deployed("secret")
      await go(`/stacks/${name}/env`)
      await page.getByRole("button", { name: "Add variable" }).click()
      await page.getByLabel("Name").last().fill("API_TOKEN")
      await page.locator(".env-value").last().fill(SECRET)
      await page.locator(".env-secret").last().check()
      expect(await page.locator(".env-value").last().getAttribute("type")).toBe("password")
      await page.getByRole("button", { name: "Save", exact: true }).click()
      await page.locator("main .badge.pending").first().waitFor()
      expect(await envOf((await stackContainer(name)).Id)).toContain("API_TOKEN=none")
      await shot("stack-env")
      await page.getByRole("button", { name: "Apply" }).click()
      await page.locator("main [role=status]", { hasText: "applied" }).waitFor()
      await page.locator("main .badge.pending").first().waitFor({ state: "detached" })
      expect(await envOf((await stackContainer(name)).Id)).toContain(`API_TOKEN=${SECRET}`)
      await page.reload()
      await page.locator(".env-value").first().waitFor()
      expect(await page.locator(".env-value").first().inputValue()).toBe("")
      expect(await page.content()).not.toContain(SECRET)
    },
    SLOW,
  )

  test(
    "rolling back to version 1 restores its environment",
    async () => {
      // version 1 as COMPOSE leaves it, version 2 with the secret
      const name = await deployed("rollback")
      await send("PUT", `/stacks/${name}/env`, [{ key: "API_TOKEN", value: SECRET, secret: true }])
      await send("POST", `/stacks/${name}/apply`, {})
      expect(await envOf((await stackContainer(name)).Id)).toContain(`API_TOKEN=${SECRET}`)
      await go(`/stacks/${name}/versions`)
      await page.getByRole("button", { name: "Roll back to version 1" }).click()
      await confirm()
      await page
        .locator("main tr", { hasText: "current" })
        .filter({ has: page.locator("td", { hasText: /^1\b/ }) })
        .waitFor()
      expect(await envOf((await stackContainer(name)).Id)).toContain("API_TOKEN=none")
      await shot("stack-versions")
    },
    SLOW,
  )

  test(
    "a copy: the dry run shows a blocker, then under a new name the plan is clear and the copy is made",
    async () => {
      const name = await deployed("copy")
      const copyName = stackFor("copy-copy")
      await go(`/stacks/${name}`)
      await page.getByRole("button", { name: "Copy…" }).click()
      await page.getByRole("button", { name: "Dry run" }).click()
      await page.locator(".plan-part.blockers li").first().waitFor()
      const copy = page.getByRole("button", { name: "Copy", exact: true })
      expect(await copy.isDisabled()).toBe(true)
      await shot("copy-dry-run")

      await page.locator("#copy-as").fill(copyName)
      await page.getByLabel("Accept that host-path mounts stay behind").check()
      await page.getByRole("button", { name: "Dry run" }).click()
      await page.locator(".plan", { hasText: "No blockers" }).waitFor()
      expect(await page.locator(".plan").textContent()).toContain(`${copyName}_cache`)
      await copy.click()
      await page.locator(".plan", { hasText: "Copied." }).waitFor()
      expect((await send("GET", `/stacks/${copyName}/compose`)).content).toContain("tick")
      await page.locator("dialog.modal").getByRole("button", { name: "Close" }).click()
    },
    SLOW,
  )

  test(
    "a container is deleted after confirmation",
    async () => {
      await runContainer(engine, "hm-ui-delete", "trap 'exit 0' TERM; sleep 300")
      await go("/containers")
      const row = page.locator("main tr", { hasText: "hm-ui-delete" })
      await row.getByRole("button", { name: "Delete hm-ui-delete" }).click()
      await confirm()
      await row.waitFor({ state: "detached" })
      expect((await engine.listContainers({ all: true })).some((c) => c.Names.includes("/hm-ui-delete"))).toBe(false)
      await shot("containers")
    },
    SLOW,
  )

  test(
    "images, volumes, networks and the prune summary list the engine's resources",
    async () => {
      await go("/images")
      const row = page.locator("main tr", { hasText: testImage() })
      await row.getByRole("button", { name: `Scan ${testImage()}` }).click()
      await row.locator(".sev, .error-text").first().waitFor()
      expect(await row.textContent()).not.toContain("scan failed")
      // The recorded report holds four medium-severity findings.
      await row.locator(".sev-medium", { hasText: "4 medium" }).waitFor()
      await shot("images")
      await row.getByRole("button", { name: "CVEs" }).click()
      const cves = page.locator("dialog.modal tbody tr")
      await cves.first().waitFor()
      expect(await cves.count()).toBe(4)
      expect(await page.locator("dialog.modal").textContent()).toContain("CVE-")
      await shot("image-cves")
      await page.locator("dialog.modal").getByRole("button", { name: "Close" }).click()
      await go("/volumes")
      await page.locator("main").locator("table, .empty").first().waitFor()
      await go("/networks")
      await page.locator("main td", { hasText: "bridge" }).first().waitFor()
      await shot("networks")
      await go("/prune")
      await page.locator("#prune-containers").waitFor()
      expect(await page.locator("#prune-containers").textContent()).toMatch(/Stopped containers: \d+/)
      await shot("prune")
    },
    SLOW,
  )

  test(
    "the cluster page mints a token and lists nodes",
    async () => {
      await go("/cluster")
      await page.getByRole("button", { name: "Mint a token" }).click()
      await page.locator("#token-value").waitFor()
      const token = await page.locator("#token-value").inputValue()
      expect(token.length).toBeGreaterThan(16)
      expect((await (await fetch(`${svc.url}/api/cluster/token`)).json()).token).toBe(token)
      await page.locator(".badge", { hasText: "control-plane" }).waitFor()
      await shot("cluster")
    },
    SLOW,
  )

  test(
    "a second server joins from its own page; the switcher runs pages, terminal included, on it through the gateway",
    async () => {
      const { token } = await send("POST", "/cluster/token")
      await runContainer(engine, "hm-ui-on-a", "trap 'exit 0' TERM; sleep 300")
      const other = realEngine("b")
      await cleanup(other)
      member = await startService({ DOCKER_HOST: engineHost("b") })
      const onB = await runContainer(other, "hm-ui-on-b", "trap 'exit 0' TERM; sleep 300")

      await page.goto(`${member.url}/#/cluster`)
      await page.locator("#join-url").fill(svc.url)
      await page.locator("#join-token").fill(token)
      await page.locator("#join-name").fill("node-b")
      await page.locator("#join-advertise").fill(member.url)
      await page.getByRole("button", { name: "Join" }).click()
      await page.locator("main .badge", { hasText: "member" }).waitFor()

      await go("/cluster")
      await page.locator("main tr", { hasText: "node-b" }).locator(".badge", { hasText: "online" }).waitFor()
      await page.locator("#node").selectOption("node-b")
      await go("/containers")
      await page.locator("main tr", { hasText: "hm-ui-on-b" }).waitFor()
      expect(await page.locator("main tr", { hasText: "hm-ui-on-a" }).count()).toBe(0)
      await shot("node-switch")
      await go(`/containers/${onB}/shell`)
      await page.locator(".term-status", { hasText: "Connected" }).waitFor()
      await page.locator(".xterm").click()
      await page.keyboard.type("echo on-$((40+2))-b\n")
      await page.locator(".xterm-rows", { hasText: "on-42-b" }).waitFor()
      await page.locator("#node").selectOption("")
      await go("/containers")
      await page.locator("main tr", { hasText: "hm-ui-on-a" }).waitFor()

      await page.goto(`${member.url}/#/cluster`)
      await page.getByRole("button", { name: "Leave the cluster" }).click()
      await confirm()
      await page.locator("#join-url").waitFor()
      expect(await send("GET", "/nodes")).toEqual([])
    },
    SLOW,
  )

  test(
    "speech is synthesized, its cues shown from the browser's reading of the WebVTT and following the playback, and downloadable",
    async () => {
      await go("/speech")
      await page.locator("#speech-text").fill("Harbormaster speaks. This is the second sentence.")
      await page.getByRole("button", { name: "Synthesize" }).click()
      const cues = page.locator(".cues li")
      await cues.nth(1).waitFor()
      expect(await cues.allTextContents()).toEqual([
        expect.stringMatching(/^\d+\.\ds Harbormaster speaks\.$/),
        expect.stringMatching(/^\d+\.\ds This is the second sentence\.$/),
      ])
      expect(await page.locator(".player summary").textContent()).toBe("2 cues")
      // A cue from the list is played at once, the audio just loaded
      await cues.last().getByRole("button").click()
      await page.locator(".subtitle", { hasText: "second sentence" }).waitFor()
      await page.locator(".cues li.current").waitFor({ state: "detached" })
      // Played from the start, the subtitle and the marked cue move on with the audio.
      await cues.first().getByRole("button").click()
      await page.locator(".cues li.current", { hasText: "Harbormaster speaks." }).waitFor()
      await page.locator(".subtitle", { hasText: "second sentence" }).waitFor()
      await page.locator(".cues li.current", { hasText: "second sentence" }).waitFor()
      expect(await page.locator(".cues li.current").count()).toBe(1)
      expect(await page.getByRole("link", { name: "Download MP3" }).getAttribute("download")).toBe("speech.mp3")
      expect(await page.getByRole("link", { name: /Download subtitles/ }).getAttribute("download")).toBe("speech.vtt")
      await shot("speech")
    },
    SLOW,
  )

  test("keyboard only: skip link, navigation and page controls are reachable, with a visible focus ring", async () => {
    // A fresh load: a hash change from the previous page would move the focus to the new page's top.
    await page.goto("about:blank")
    await go("/")
    const focused = () =>
      page.evaluate(() => ({
        text: document.activeElement?.textContent?.trim(),
        outline: getComputedStyle(document.activeElement!).outlineStyle,
      }))
    await page.keyboard.press("Tab")
    expect(await focused()).toMatchObject({ text: "Skip to content" })
    expect((await focused()).outline).not.toBe("none")
    for (let i = 0; i < 10 && (await focused()).text !== "Stacks"; i++) await page.keyboard.press("Tab")
    expect((await focused()).text).toBe("Stacks")
    await page.keyboard.press("Enter")
    await page.locator("main h1", { hasText: "Stacks" }).waitFor()
    for (let i = 0; i < 5 && (await focused()).text !== "New stack"; i++) await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await page.locator("main h1", { hasText: "New stack" }).waitFor()
  })

  test(
    "resource charts open with history and update live; sparklines in the list and the dashboard; a phone's width",
    async () => {
      const name = await deployed("charts")
      const id = (await stackContainer(name)).Id
      for (let i = 0; i < 60; i++) {
        const r = await (await fetch(`${svc.url}/api/containers/${id}/stats?history=true`)).json()
        if (r.history.time.length >= 3) break
        await Bun.sleep(500)
      }
      const points = async () => Number(await page.locator(".charts").getAttribute("data-points"))
      for (const path of [`/containers/${id}/stats`, `/stacks/${name}/resources`]) {
        await go(path)
        await recordCanvasText(page)
        await page.locator(".chart canvas").nth(3).waitFor()
        expect(await page.locator(".chart figcaption").allTextContents()).toEqual([
          "CPU",
          "Memory",
          "Network",
          "Block I/O",
        ])
        const opened = await points()
        expect(opened).toBeGreaterThanOrEqual(3)
        await page.waitForFunction(
          (n) => Number(document.querySelector(".charts")?.getAttribute("data-points")) > n,
          opened,
        )
        // redrawn with the new point since the recording began: every label of the axes is recorded
        expect(await chartFaults(page)).toEqual([])
        await shot(path.startsWith("/containers") ? "container-resources" : "stack-resources")
      }
      expect(await page.locator(".stats-facts dd").first().textContent()).toMatch(/%/)
      await go("/containers")
      // A sparkline of an idle container is a flat line: a path of zero height, drawn but never "visible".
      await page.waitForFunction(
        (stack) =>
          [...document.querySelectorAll("main tr")]
            .find((r) => r.textContent?.includes(stack))
            ?.querySelector("svg.spark-cpu path")
            ?.getAttribute("d")
            ?.includes("L"),
        name,
      )
      await page.waitForFunction(() =>
        (document.querySelector("main svg.spark-mem path")?.getAttribute("d") ?? "").includes("L"),
      )
      await go("/")
      await page.locator(".top-consumers svg.spark-cpu").first().waitFor()
      await page.setViewportSize({ width: 390, height: 844 })
      for (const path of [`/stacks/${name}/resources`, `/containers/${id}/stats`]) {
        await go(path)
        await page.locator(".chart canvas").first().waitFor()
        await page.waitForFunction(() =>
          [...document.querySelectorAll(".chart")].every((c) => c.getBoundingClientRect().right <= 390),
        )
        await recordCanvasText(page)
        const shown = await points()
        await page.waitForFunction(
          (n) => Number(document.querySelector(".charts")?.getAttribute("data-points")) > n,
          shown,
        )
        expect(await chartFaults(page)).toEqual([])
      }
      await shot("phone-resources")
      await page.setViewportSize({ width: 1280, height: 860 })
    },
    SLOW,
  )

  test("works at phone width", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await go("/containers")
    expect(await page.locator("#nav").isVisible()).toBe(false)
    await page.getByRole("button", { name: "Menu" }).click()
    await page.getByRole("link", { name: "Stacks" }).click()
    await page.locator("main h1", { hasText: "Stacks" }).waitFor()
    await shot("phone-stacks")
    await page.setViewportSize({ width: 1280, height: 860 })
  })

  test(
    "a stack is deleted from its page, named volumes too when asked",
    async () => {
      const name = await deployed("delete")
      await go(`/stacks/${name}`)
      expect((await engine.listVolumes()).map((v) => v.Name)).toContain(`${name}_cache`)
      await page.getByRole("button", { name: `Delete ${name}`, exact: true }).click()
      await page.locator("dialog.modal").getByLabel("Also remove its named volumes and their data").check()
      await confirm()
      await page.waitForURL("**/#/stacks")
      await page.locator("main table a", { hasText: new RegExp(`^${name}$`) }).waitFor({ state: "detached" })
      expect(await stackContainers(name)).toEqual([])
      expect((await engine.listVolumes()).map((v) => v.Name)).not.toContain(`${name}_cache`)
    },
    SLOW,
  )
})
