// The backups page in Chromium against the real service, engine and restic: a repository with its
// stacks, a stack backed up from the page with restic's progress, its backups listed, a restore
// refused by its dry run while the stack exists and done once it is gone (the volume's file back),
// and a stack whose scheduled backups fail shown in red once its newest backup is older than the
// schedule allows.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, type Browser } from "../support/browser.ts"

const STACK = "hm-ui-bk"
const VOLUME = `${STACK}_data`
let engine: Engine
let svc: Service
let browser: Browser
let page: Page
let dir: string

const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    volumes: [data:/data]
    labels: { ${TEST_LABEL}: "1" }
volumes:
  data:
    labels: { ${TEST_LABEL}: "1" }
`

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** The file the volume holds, read in a throwaway container. */
async function readData(): Promise<string> {
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["cat", "/v/kept.txt"],
    Labels: { [TEST_LABEL]: "1" },
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: VOLUME, Target: "/v" }] },
  })
  try {
    await engine.containerAction(Id, "start")
    await engine.waitContainer(Id)
    const lines: string[] = []
    for await (const l of engine.logs(Id, { follow: false, tail: "all" })) lines.push(l.line)
    return lines.join("\n").trim()
  } finally {
    await engine.removeContainer(Id, { force: true })
  }
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  await engine.removeVolume(VOLUME, { force: true }).catch(() => {})
  dir = mkdtempSync(join(tmpdir(), "hm-ui-backups-"))
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_TRANSFER_IMAGE: testImage() })
  expect((await call("POST", "/stacks", { name: STACK, content: compose })).status).toBe(201)
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", "echo kept-in-the-backup > /v/kept.txt"],
    Labels: { [TEST_LABEL]: "1" },
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: VOLUME, Target: "/v" }] },
  })
  await engine.containerAction(Id, "start")
  await engine.waitContainer(Id)
  await engine.removeContainer(Id, { force: true })
  expect(
    (
      await call("POST", "/backups/repos", {
        name: "local",
        repository: join(dir, "repo"),
        password: "pw-ui-backups",
        init: true,
        keep: { daily: 7 },
      })
    ).status,
  ).toBe(201)
  browser = await openBrowser()
  page = browser.page
}, 120_000)

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await call("DELETE", `/stacks/${STACK}?volumes=true`).catch(() => {})
  await svc?.stop()
  await engine.removeVolume(VOLUME, { force: true }).catch(() => {})
  await cleanup(engine)
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

const row = () => page.locator(`section[aria-labelledby="backup-repo-local"] tbody tr`, { hasText: STACK }).first()

test("a stack backed up from the page, its backups listed, restored after a dry run", async () => {
  await page.goto(`${svc.url}/#/backups`)
  await page.getByRole("heading", { name: "local" }).waitFor()
  expect(await page.locator("main dl").textContent()).toContain("7 daily")
  expect(await row().textContent()).toContain("never")

  await page.getByRole("button", { name: `Back up ${STACK} now` }).click()
  await page.getByText(new RegExp(`^Backed up ${STACK}: .* read`)).waitFor()
  await row().getByText(/\d+ s/).waitFor()
  expect(await row().textContent()).not.toContain("never")

  await page.getByRole("button", { name: `Backups of ${STACK}` }).click()
  const restore = page.getByRole("button", { name: /^Restore hm-ui-bk from / })
  await restore.waitFor()
  expect(await restore.count()).toBe(1)

  // While the stack exists, the dry run shows why the restore cannot go ahead, and nothing happens.
  await restore.click()
  const dialog = page.locator("dialog.modal")
  await dialog.getByRole("button", { name: "Dry run" }).click()
  await dialog.getByText(/^Blocked:/).waitFor()
  expect(await dialog.getByRole("button", { name: "Restore", exact: true }).isDisabled()).toBe(true)
  await dialog.getByRole("button", { name: "Close" }).click()

  expect((await call("DELETE", `/stacks/${STACK}?volumes=true`)).status).toBeLessThan(300)
  await restore.click()
  await dialog.getByRole("button", { name: "Dry run" }).click()
  await dialog.getByText(`No blockers: the backup can be restored as ${STACK}.`).waitFor()
  expect(await dialog.locator(".plan-part li").allTextContents()).toContain(`${VOLUME} → ${VOLUME}, data restored`)
  await dialog.getByRole("button", { name: "Restore", exact: true }).click()
  await page.getByText(new RegExp(`^Restored ${STACK}'s backup`)).waitFor()
  expect((await call("GET", `/stacks/${STACK}`)).status).toBe(200)
  expect(await readData()).toBe("kept-in-the-backup")
}, 120_000)

test("a scheduled stack whose backups fail turns red once its newest backup is older than the schedule allows", async () => {
  // Every second, a backup whose hook fails: the newest backup stays the one made above.
  const edited = await call("PUT", "/backups/repos/local", {
    schedule: "1s",
    stacks: [STACK],
    hooks: { [STACK]: { exec: { service: "app", command: ["false"] } } },
  })
  expect(edited.status).toBe(200)
  const deadline = Date.now() + 30_000
  const overdue = async () =>
    (await call("GET", "/backups/repos/local/status")).body.find((s: any) => s.stack === STACK)?.overdue
  while (Date.now() < deadline && !(await overdue())) await Bun.sleep(250)
  expect(await overdue()).toBe(true)
  await page.reload()
  const age = row().locator(".error-text")
  await age.waitFor()
  expect(await age.textContent()).toMatch(/\(overdue\)$/)
  expect(await page.locator("main dl").textContent()).toContain("1s")
  expect((await call("PUT", "/backups/repos/local", {})).status).toBe(200)
}, 60_000)
