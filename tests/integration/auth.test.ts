// Sign-in against the real service process and the real private engine: users made from the command
// line, the first admin through the setup token the service prints, a stack deployed by an operator,
// a viewer refused a shell over WebSocket and an environment export, an operator's shell, and the
// audit log showing each, with no secret value in it.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { terminal } from "../support/terminal.ts"
import { authFiles, userCli as runUserCli } from "../support/users.ts"

const NAME = "hm-auth-stack"
const SECRET = "auth-s3cret-value"
const PASSWORD = "a long enough password"
const upgrade = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
}
const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    environment:
      TOKEN: \${TOKEN}
    labels: { ${TEST_LABEL}: "1" }
`

let engine: Engine
let svc: Service
let dataDir: string
const cookies: Record<string, string> = {}

/** `server user ...` on the service's data directory, the password on stdin. */
const userCli = (args: string[], stdin = "") => runUserCli(dataDir, args, stdin)

/** The service's standard output until a line matches. */
async function lineOf(stream: ReadableStream<Uint8Array>, re: RegExp): Promise<RegExpMatchArray> {
  const reader = stream.getReader()
  let text = ""
  for (;;) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`no line matched ${re}:\n${text}`)
    text += new TextDecoder().decode(value)
    const m = text.match(re)
    if (m) {
      reader.releaseLock()
      return m
    }
  }
}

const api = (path: string, who: string | undefined, init: RequestInit = {}) =>
  fetch(`${svc.url}${path}`, {
    ...init,
    headers: {
      ...(who ? { cookie: cookies[who]! } : {}),
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...(init.headers as Record<string, string>),
    },
  })

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  dataDir = mkdtempSync(join(tmpdir(), "hm-auth-"))
  expect((await userCli(["add", "otto", "--role", "operator"], `${PASSWORD}\n`)).code).toBe(0)
  expect((await userCli(["add", "vera", "--role", "viewer"], PASSWORD)).code).toBe(0)
  expect((await userCli(["add", "weak", "--role", "viewer"], "short")).code).toBe(1)
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_AUTH: "local" }, { dataDir })
})
afterAll(async () => {
  await api(`/api/stacks/${NAME}`, "otto", { method: "DELETE" }).catch(() => {})
  await svc.stop()
  await cleanup(engine)
  rmSync(dataDir, { recursive: true, force: true })
})

test("the first admin comes from the setup token the service printed; then every API call wants a sign-in", async () => {
  const [, token] = await lineOf(svc.proc.stdout as ReadableStream<Uint8Array>, /"token": "([A-Za-z0-9_-]{43})"/)
  const setup = await api("/api/auth/setup", undefined, {
    method: "POST",
    body: JSON.stringify({ token, user: "root", password: PASSWORD }),
  })
  expect(setup.status).toBe(201)
  cookies.root = setup.headers.get("set-cookie")!.split(";")[0]!
  expect(
    (
      await api("/api/auth/setup", undefined, {
        method: "POST",
        body: JSON.stringify({ token, user: "eve", password: PASSWORD }),
      })
    ).status,
  ).toBe(403)
  expect((await api("/api/health", undefined)).status).toBe(200)
  expect((await fetch(`${svc.url}/`)).status).toBe(200)
  expect((await api("/api/containers", undefined)).status).toBe(401)
  for (const user of ["otto", "vera"]) {
    const res = await api("/api/auth/login", undefined, {
      method: "POST",
      body: JSON.stringify({ user, password: PASSWORD }),
    })
    expect(res.status).toBe(200)
    cookies[user] = res.headers.get("set-cookie")!.split(";")[0]!
  }
})

test("an operator deploys a stack; a viewer reads it with the secret hidden and is refused its export and a shell; the operator's shell works", async () => {
  const deploy = await api("/api/stacks", "otto", {
    method: "POST",
    body: JSON.stringify({ name: NAME, content: compose, env: [{ key: "TOKEN", value: SECRET, secret: true }] }),
  })
  expect(deploy.status).toBe(201)
  expect(
    (
      await api("/api/stacks", "vera", {
        method: "POST",
        body: JSON.stringify({ name: "hm-auth-other", content: compose }),
      })
    ).status,
  ).toBe(403)
  expect(await (await api(`/api/stacks/${NAME}/env`, "vera")).json()).toEqual([
    { key: "TOKEN", value: null, secret: true },
  ])
  expect((await api(`/api/stacks/${NAME}/env/export`, "vera")).status).toBe(403)
  const [container] = await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${NAME}`] } })
  const shellUrl = `${svc.url}/api/containers/${container!.Id}/shell`
  expect((await fetch(shellUrl, { headers: { ...upgrade, cookie: cookies.vera! } })).status).toBe(403)
  expect((await fetch(shellUrl, { headers: { ...upgrade } })).status).toBe(401)
  const term = await terminal(shellUrl.replace("http:", "ws:"), { headers: { cookie: cookies.otto! } })
  await term.prompt()
  term.type("echo signed-$((40+2))\r")
  await term.waitFor(/signed-42/)
  term.ws.close()
  await term.closed
})

test("the audit log shows each: sign-ins, the deploy, the refusals, the shell opened and closed; never the secret", async () => {
  await Bun.sleep(100)
  const { entries } = await (await api("/api/audit?limit=1000", "root")).json()
  const seen = entries.map((e: any) => `${e.user} ${e.action ?? e.method} ${e.route} ${e.status}`)
  for (const line of [
    "root setup /api/auth/setup 201",
    "eve setup /api/auth/setup 403",
    "null GET /api/containers 401",
    "otto login /api/auth/login 200",
    "vera login /api/auth/login 200",
    "otto POST /api/stacks 201",
    "vera POST /api/stacks 403",
    "vera GET /api/stacks/:name/env/export 403",
    "vera GET /api/containers/:id/shell 403",
    "null GET /api/containers/:id/shell 401",
    "otto ws.open /api/containers/:id/shell 101",
    "otto ws.close /api/containers/:id/shell 101",
  ])
    expect(seen).toContain(line)
  expect(entries.find((e: any) => e.action === "ws.open").peer).toBe("127.0.0.1")
  const files =
    readFileSync(join(dataDir, "audit", "audit.log"), "utf8") +
    authFiles(dataDir)
      .map((f) => f.text)
      .join("\n")
  expect(files).not.toContain(SECRET)
  expect(files).not.toContain(PASSWORD)
  expect(files).not.toContain(cookies.otto!.split("=")[1]!)
})

test("a user removed from the command line is signed out of the running service", async () => {
  expect((await api("/api/containers", "vera")).status).toBe(200)
  const removed = await userCli(["del", "vera"])
  expect(removed).toEqual({ code: 0, out: "user vera removed; their sessions, tokens and second factors ended\n" })
  expect((await api("/api/containers", "vera")).status).toBe(401)
  expect((await userCli(["list"])).out).toBe("otto\toperator\nroot\tadmin\n")
})
