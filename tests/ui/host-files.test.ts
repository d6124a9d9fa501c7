// The host terminal and a volume's files in headless Chromium against the real service: an admin
// signed in runs a command on the host, resizes the window (the shell sees the new size), closes the
// tab and the shell's whole process tree is gone; an operator is refused it, and so is everyone while
// sign-in is off on a public address. A volume's files are browsed, a file edited and saved, and an
// edit over a change made meanwhile is refused with the editor saying so.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"

let svc: Service
let browser: Browser
const engine = () => realEngine()

async function addUser(name: string, role: string) {
  const add = Bun.spawn(["bun", "server.ts", "user", "add", name, "--role", role], {
    cwd: `${import.meta.dir}/../..`,
    env: { ...process.env, SVC_DATA: svc.dataDir },
    stdin: new Blob([`${name}'s long password\n`]),
    stdout: "pipe",
    stderr: "pipe",
  })
  expect(await add.exited).toBe(0)
}

async function signIn(name: string) {
  await browser.context.clearCookies()
  const page = browser.page
  await page.goto(svc.url)
  await page.locator("#signin-user").fill(name)
  await page.locator("#signin-password").fill(`${name}'s long password`)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.locator("#user .user").waitFor()
}

/** Whether a process is there and not a zombie (dead, waiting for its parent to reap it). */
const alive = (pid: string) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))
  } catch {
    return false
  }
}

/** The processes whose command line is `cmd`. */
const running = (cmd: string) =>
  readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ").trim() === cmd
      } catch {
        return false
      }
    })

beforeAll(async () => {
  await cleanup(engine())
  svc = await startService({
    DOCKER_HOST: engineHost(),
    SVC_TRANSFER_IMAGE: testImage(),
    SVC_AUTH: "local",
    SVC_HOST_SHELL: "root",
  })
  await addUser("ada", "admin")
  await addUser("ops", "operator")
  browser = await openBrowser()
}, 120_000)

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await svc?.stop()
  await cleanup(engine())
})

test("an admin's host terminal runs a command, follows a resize, and closing the tab kills its process tree", async () => {
  await signIn("ada")
  const page = await browser.context.newPage()
  await page.setViewportSize({ width: 1280, height: 860 })
  await show(page, `${svc.url}/#/host`)
  await page.locator(".term-status", { hasText: "Connected" }).waitFor()
  await page.locator(".xterm").click()
  await page.keyboard.type("echo host-$((6*7)); stty size; (setsid sleep 4801 &); nohup sleep 4802 >/dev/null 2>&1 &\n")
  await page.locator(".xterm-rows", { hasText: "host-42" }).waitFor()
  const before = (await page.locator(".xterm-rows").textContent()) ?? ""
  const [, rows, cols] = /(\d+) (\d+)/.exec(before.slice(before.indexOf("host-42")))!
  await page.setViewportSize({ width: 800, height: 600 })
  await page.waitForTimeout(500)
  await page.keyboard.type("clear; stty size | sed 's/^/size-/'\n")
  await page.locator(".xterm-rows", { hasText: /size-\d+ \d+/ }).waitFor()
  const after = /size-(\d+) (\d+)/.exec((await page.locator(".xterm-rows").textContent()) ?? "")!
  expect(Number(after[2])).toBeLessThan(Number(cols))
  expect(Number(after[1])).toBeLessThan(Number(rows))
  for (let i = 0; i < 100 && running("sleep 4801").length + running("sleep 4802").length < 2; i++) await Bun.sleep(50)
  const pids = [...running("sleep 4801"), ...running("sleep 4802")]
  expect(pids.length).toBe(2)
  await page.close()
  for (let i = 0; i < 200 && pids.some(alive); i++) await Bun.sleep(50)
  expect(pids.filter(alive)).toEqual([])
})

test("an operator is offered no host terminal and is refused one", async () => {
  await signIn("ops")
  const page = browser.page
  expect(await page.locator('nav a[href="#/host"]').isVisible()).toBe(false)
  await show(page, `${svc.url}/#/host`)
  await page.locator(".term-status", { hasText: /failed|Disconnected/ }).waitFor()
  expect(await page.locator(".xterm-rows").textContent()).not.toContain("#")
})

test("with sign-in off on a public address the host terminal is refused", async () => {
  const open = await startService(
    { DOCKER_HOST: engineHost(), SVC_HOST_SHELL: "root", SVC_ALLOWED_HOSTS: "*" },
    { host: "0.0.0.0" },
  )
  try {
    const page = await browser.context.newPage()
    await show(page, `http://127.0.0.1:${open.port}/#/host`)
    await page.locator(".term-status", { hasText: /failed|Disconnected/ }).waitFor()
    const res = await fetch(`http://127.0.0.1:${open.port}/api/host/shell`, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    })
    expect(res.status).toBe(403)
    await page.close()
  } finally {
    await open.stop()
  }
})

test("a volume's files are browsed and a file edited; an edit over a change made meanwhile is refused", async () => {
  const e = engine()
  await e.createVolume("hm-ui-files", { [TEST_LABEL]: "1" })
  const write = async (script: string) => {
    const { Id } = await e.createContainer({
      Image: testImage(),
      Cmd: ["sh", "-c", script],
      Labels: { [TEST_LABEL]: "1" },
      HostConfig: { Mounts: [{ Type: "volume", Source: "hm-ui-files", Target: "/v" }] },
    })
    await e.containerAction(Id, "start")
    await e.waitContainer(Id)
  }
  await write("mkdir -p /v/conf && printf 'port = 1\\n' > /v/conf/app.ini")
  await signIn("ada")
  const page = browser.page
  await show(page, `${svc.url}/#/volumes/hm-ui-files/files`)
  await page.getByRole("button", { name: "conf/" }).click()
  await page.getByRole("button", { name: "Edit app.ini" }).click()
  const box = page.getByRole("textbox", { name: /Content of conf\/app.ini/ })
  await box.waitFor()
  await box.fill("port = 2\n")
  await page.getByRole("button", { name: "Save conf/app.ini" }).click()
  await page.getByText("Saved.").waitFor()
  await write("printf 'port = 3\\n' > /v/conf/app.ini")
  await box.fill("port = 4\n")
  await page.getByRole("button", { name: "Save conf/app.ini" }).click()
  await page.getByText(/changed since it was opened/).waitFor()
  const res = await fetch(`${svc.url}/api/volumes/hm-ui-files/files/content?path=conf/app.ini`, {
    headers: { cookie: (await browser.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
  })
  expect(await res.text()).toBe("port = 3\n")
})
