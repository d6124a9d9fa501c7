// SVC_AUTH=proxy behind Caddy (Debian's), run from the recipe in docs/proxy/Caddyfile as docs/auth.md
// shows it: through Caddy each person has the role their groups map to, whatever headers they send;
// straight to the service's port, identity headers from a peer that is not the trusted proxy are
// refused. The service listens on every address and trusts ::1 only, where Caddy comes from; the
// test's own direct calls come from 127.0.0.1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { engineHost } from "../support/engine.ts"
import { freePort, startService, type Service } from "../support/service.ts"

const root = join(import.meta.dir, "../..")
const RECIPE = readFileSync(join(root, "docs/proxy/Caddyfile"), "utf8")
const PASSWORDS: Record<string, string> = {
  alice: "alice-example-password",
  olga: "olga-example-password",
  vera: "vera-example-password",
}

let svc: Service
let caddy: Bun.Subprocess<"ignore", "ignore", "pipe">
let caddyUrl: string
let dir: string

const basic = (user: string) => `Basic ${btoa(`${user}:${PASSWORDS[user]}`)}`

beforeAll(async () => {
  svc = await startService(
    {
      DOCKER_HOST: engineHost(),
      SVC_AUTH: "proxy",
      SVC_AUTH_TRUSTED_PROXIES: "::1",
      SVC_AUTH_ROLE_MAP: "admins=admin,ops=operator,staff=viewer",
    },
    { host: "[::]" },
  )
  dir = mkdtempSync(join(tmpdir(), "hm-caddy-"))
  const port = await freePort()
  caddyUrl = `http://127.0.0.1:${port}`
  // The recipe as it is, after a global block that keeps Caddy's admin endpoint off (tests run side by side).
  writeFileSync(join(dir, "Caddyfile"), `{\n\tadmin off\n}\n${RECIPE}`)
  caddy = Bun.spawn(["caddy", "run", "--adapter", "caddyfile", "--config", join(dir, "Caddyfile")], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_CONFIG_HOME: dir,
      SITE_ADDRESS: caddyUrl,
      UPSTREAM: `[::1]:${svc.port}`,
    },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  })
  for (
    let i = 0;
    !(await fetch(`${caddyUrl}/api/health`).then(
      () => true,
      () => false,
    ));
    i++
  ) {
    if (caddy.exitCode !== null || i === 200)
      throw new Error(`caddy did not start: ${await new Response(caddy.stderr).text()}`)
    await Bun.sleep(50)
  }
}, 60_000)

afterAll(async () => {
  caddy?.kill()
  await caddy?.exited
  await svc?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const viaCaddy = (user: string | null, path: string, init: RequestInit = {}) =>
  fetch(`${caddyUrl}${path}`, {
    ...init,
    headers: { ...(user && { authorization: basic(user) }), ...(init.headers as Record<string, string>) },
  })

describe("SVC_AUTH=proxy behind Caddy", () => {
  test("the recipe in docs/auth.md is the one tested", () => {
    expect(readFileSync(join(root, "docs", "auth.md"), "utf8")).toContain(RECIPE.trim())
  })

  test("Caddy asks for credentials before anything reaches the service", async () => {
    const res = await viaCaddy(null, "/api/containers")
    expect(res.status).toBe(401)
    expect(res.headers.get("www-authenticate")).toContain("Basic")
  })

  test.each([
    ["alice", "admin"],
    ["olga", "operator"],
    ["vera", "viewer"],
  ])("%s is signed in through Caddy as %s", async (user, role) => {
    const res = await viaCaddy(user, "/api/auth/me")
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ user, role, source: "proxy" })
  })

  test("a viewer may read and may not act", async () => {
    expect((await viaCaddy("vera", "/api/containers")).status).toBe(200)
    const res = await viaCaddy("vera", "/api/prune/images", { method: "POST" })
    expect(res.status).toBe(403)
  })

  test("identity headers a client sends through Caddy are replaced by Caddy's", async () => {
    const res = await viaCaddy("vera", "/api/auth/me", {
      headers: { "remote-user": "alice", "remote-groups": "admins" },
    })
    expect(await res.json()).toMatchObject({ user: "vera", role: "viewer" })
  })

  test("straight to the service's port, forged identity headers from an untrusted peer are refused", async () => {
    const direct = `http://127.0.0.1:${svc.port}`
    for (const path of ["/api/containers", "/api/auth/me"]) {
      const res = await fetch(`${direct}${path}`, { headers: { "remote-user": "alice", "remote-groups": "admins" } })
      expect(res.status).toBe(401)
    }
  })
})
