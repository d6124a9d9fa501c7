// A git stack's page in Chromium against the real service and engine, with a git server on loopback:
// the git card shows the repository, the commit deployed and the remote's head (up to date, then
// differs after a push), the last sync; "Sync now" applies the new commit and says so; a sync under
// way shows the commit it deploys. A stack without git shows no card.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import type { Page } from "playwright-core"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startGitServer, type GitServer, type WorkTree } from "../support/git-server.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"

const STACK = "hm-ui-git"
let engine: Engine
let server: GitServer
let repo: WorkTree
let svc: Service
let browser: Browser
let page: Page

const compose = (n: number) => `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${TEST_LABEL}: "1", round: "${n}" }
`

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  server = startGitServer()
  repo = await server.repo("ui")
  await repo.commit({ "compose.yaml": compose(1) })
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_UPDATE_WATCH: "2" })
  expect((await call("POST", "/stacks", { name: STACK, git: { url: repo.url } })).status).toBe(201)
  expect((await call("POST", "/stacks", { name: "hm-ui-plain", content: compose(0) })).status).toBe(201)
  browser = await openBrowser()
  page = browser.page
}, 120_000)

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  for (const name of [STACK, "hm-ui-plain"]) await call("DELETE", `/stacks/${name}`).catch(() => {})
  await svc?.stop()
  server?.stop()
  await cleanup(engine)
}, 60_000)

test("the git card shows the deployed commit and the remote's head; Sync now applies a pushed commit", async () => {
  const first = await repo.git("rev-parse", "HEAD")
  await page.goto(`${svc.url}/#/stacks/${STACK}`)
  const card = page.getByRole("region", { name: "Git source" })
  await card.getByText("up to date").waitFor()
  expect(await card.textContent()).toContain(repo.url)
  expect(await card.locator(`code[title="${first}"]`).count()).toBe(2)

  const second = await repo.commit({ "compose.yaml": compose(2) })
  await page.reload()
  await card.getByText("differs").waitFor()
  expect(await card.locator(`code[title="${second}"]`).count()).toBe(1)
  await card.getByRole("button", { name: `Sync ${STACK} from git` }).click()
  await page.getByText(`Sync of ${STACK}: applied`).waitFor()
  await card.getByText("up to date").waitFor()
  expect(await card.locator(`code[title="${second}"]`).count()).toBe(2)
  expect(await card.textContent()).toContain("applied")
}, 60_000)

test("a sync under way shows the commit it deploys", async () => {
  const third = await repo.commit({ "compose.yaml": compose(3) })
  const watched = call("POST", `/stacks/${STACK}/git/sync`, { watch: 8 })
  for (const deadline = Date.now() + 30_000; ; await Bun.sleep(100)) {
    const versions = (await call("GET", `/stacks/${STACK}/versions`)).body as { commit?: string }[]
    if (versions.at(-1)?.commit === third) break
    if (Date.now() > deadline) throw new Error("the sync never deployed the commit")
  }
  await show(page, `${svc.url}/#/stacks/${STACK}`)
  const card = page.getByRole("region", { name: "Git source" })
  await card.getByText("deploying").waitFor()
  expect(await card.locator("dd", { hasText: "deploying" }).locator(`code[title="${third}"]`).count()).toBe(1)
  expect((await watched).body).toMatchObject({ commit: third, verdict: "applied" })
}, 60_000)

test("a stack without git has no git card", async () => {
  await page.goto(`${svc.url}/#/stacks/hm-ui-plain`)
  await page.getByRole("heading", { name: "hm-ui-plain" }).waitFor()
  await page.getByRole("heading", { name: "app" }).waitFor()
  expect(await page.getByRole("region", { name: "Git source" }).count()).toBe(0)
}, 30_000)
