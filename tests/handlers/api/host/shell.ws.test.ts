// The host terminal's WebSocket with a real login shell in a real pseudo-terminal (the tests run as
// root; SVC_HOST_SHELL=root): a command runs, a resize reaches the terminal, closing the socket kills
// the whole process tree (a setsid'd and a nohup'd process too), an idle session is closed, the
// transcript is kept; and who is refused: the terminal off, sign-in off on a public address, an operator.
import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serveApp, testApp, type TestApp } from "../../../support/app.ts"
import { authApp } from "../../../support/auth.ts"
import { terminal } from "../../../support/terminal.ts"

let t: TestApp | undefined
let server: ReturnType<typeof serveApp> | undefined
const folders: string[] = []
afterEach(() => {
  server?.stop()
  t?.close()
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true })
})

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))

async function until(ok: () => boolean, ms = 10_000) {
  for (let i = 0; i < ms / 20 && !ok(); i++) await Bun.sleep(20)
  expect(ok()).toBe(true)
}

async function open(env: Record<string, string>, query = "") {
  t = await testApp({}, { SVC_HOST_SHELL: "root", ...env })
  server = serveApp(t)
  return terminal(`${server.url.replace("http:", "ws:")}/api/host/shell${query}`)
}

test("a login shell runs a command, takes a resize, and its whole process tree is killed when the socket closes", async () => {
  const transcripts = mkdtempSync(join(tmpdir(), "hm-transcripts-"))
  folders.push(transcripts)
  const s = await open({ SVC_HOST_SHELL_TRANSCRIPTS: transcripts }, "?cols=100&rows=30")
  await s.prompt()
  s.type("echo size $(stty size); echo user $(id -un)\n")
  await s.waitFor(/size 30 100/)
  await s.waitFor(/user root/)
  s.ws.send(JSON.stringify({ type: "resize", cols: 132, rows: 43 }))
  await Bun.sleep(200)
  s.type("stty size\n")
  await s.waitFor(/43 132/)
  s.type("(setsid sleep 4711 &); nohup sleep 4712 >/dev/null 2>&1 & echo pids $!\n")
  await s.waitFor(/pids \d+/)
  const sleepers = () =>
    readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return /^sleep 471[12]$/.test(readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ").trim())
        } catch {
          return false
        }
      })
      .map(Number)
  await until(() => sleepers().length === 2)
  const pids = sleepers()
  s.ws.close()
  await until(() => pids.every((p) => !alive(p)))
  const [file] = readdirSync(transcripts)
  expect(file).toMatch(/-local-[0-9a-f]{8}\.log$/)
  expect(statSync(join(transcripts, file!)).mode & 0o777).toBe(0o600)
  expect(readFileSync(join(transcripts, file!), "utf8")).toContain("size 30 100")
})

test("a session without a keystroke is closed when its idle time is up", async () => {
  const s = await open({ SVC_HOST_SHELL_IDLE: "1" })
  const closed = await s.closed
  expect(closed.code).toBe(4000)
  expect(closed.reason).toContain("idle")
})

test("off unless SVC_HOST_SHELL names a user; refused with sign-in off on a public address", async () => {
  t = await testApp()
  server = serveApp(t)
  const res = await fetch(`${server.url}/api/host/shell`, {
    headers: {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    },
  })
  expect(res.status).toBe(404)
  expect(((await res.json()) as any).error.code).toBe("host_shell_off")
  server.stop()
  t.close()
  t = await testApp({}, { SVC_HOST_SHELL: "root", SVC_ADDR: "0.0.0.0:8080", SVC_ALLOWED_HOSTS: "*" })
  server = serveApp(t)
  const open = await fetch(`${server.url}/api/host/shell`, {
    headers: {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    },
  })
  expect(open.status).toBe(403)
  expect(((await open.json()) as any).error.code).toBe("host_shell_needs_sign_in")
})

test("with sign-in on: an operator is refused, an admin's session is audited with how long it was open", async () => {
  const a = await authApp({ SVC_HOST_SHELL: "root", SVC_ADDR: "0.0.0.0:8080", SVC_ALLOWED_HOSTS: "*" })
  t = a
  server = serveApp(a)
  await a.addUser("ops", "operator")
  await a.addUser("boss", "admin")
  const url = `${server.url.replace("http:", "ws:")}/api/host/shell`
  await expect(terminal(url, { headers: { cookie: await a.signIn("ops") } })).rejects.toBeDefined()
  const s = await terminal(url, { headers: { cookie: await a.signIn("boss") } })
  await s.prompt()
  a.clock.now += 7000
  s.ws.close()
  await until(() => readFileSync(join(a.dataDir, "audit", "audit.log"), "utf8").includes('"ws.close"'))
  const entries = readFileSync(join(a.dataDir, "audit", "audit.log"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((e) => e.route === "/api/host/shell")
  expect(entries.find((e) => e.user === "ops")).toMatchObject({ status: 403, result: "denied" })
  expect(entries.find((e) => e.action === "ws.close")).toMatchObject({ user: "boss", seconds: 7 })
})
