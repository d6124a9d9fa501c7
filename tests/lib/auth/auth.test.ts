// The front door through the app: cookies a browser on another site could send, WebSockets from a
// foreign page, guessed and expired sessions, a proxy's headers from a peer it does not trust, users
// limited to some stacks, and an audit log that holds no secret.
import { afterEach, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { serveApp } from "../../support/app.ts"
import { authApp, PASSWORD, type AuthTestApp } from "../../support/auth.ts"
import { authFiles } from "../../support/users.ts"
import { FakeCompose, twoServices } from "../../support/compose.ts"
import { FakeEngine } from "../../support/fake-engine.ts"

let t: AuthTestApp
let stop = () => {}
afterEach(() => {
  stop()
  t.close()
})

const upgrade = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
}

test("a valid cookie on a change from another site is refused (Origin or Sec-Fetch-Site), and audited", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  const cookie = await t.signIn("root")
  const post = (headers: Record<string, string>) =>
    t.call("POST", "/api/cluster/token", undefined, { cookie, ...headers })
  expect((await post({ origin: "https://evil.example" })).status).toBe(403)
  const fetched = await post({ "sec-fetch-site": "cross-site" })
  expect(fetched.status).toBe(403)
  expect((await fetched.json()).error.code).toBe("cross_site")
  expect((await post({ "sec-fetch-site": "same-site" })).status).toBe(403)
  expect((await post({ origin: "http://127.0.0.1:8080", "sec-fetch-site": "same-origin" })).status).toBe(201)
  const { entries } = await (
    await t.call("GET", "/api/audit?status_min=403&status_max=403", undefined, { cookie })
  ).json()
  expect(entries.length).toBeGreaterThanOrEqual(2)
})

test("a cross-site read with the cookie is a plain read; an API token is not a browser's and needs no same-site check", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  const cookie = await t.signIn("root")
  expect((await t.call("GET", "/api/containers", undefined, { cookie, "sec-fetch-site": "cross-site" })).status).toBe(
    200,
  )
  const { token } = await t.token(cookie)
  expect(
    (
      await t.call("POST", "/api/cluster/token", undefined, {
        authorization: `Bearer ${token}`,
        "sec-fetch-site": "cross-site",
      })
    ).status,
  ).toBe(201)
})

test("a WebSocket from a foreign origin with a valid cookie is refused before the upgrade", async () => {
  t = await authApp({ SVC_CORS_ORIGINS: "https://evil.example" })
  await t.addUser("root", "admin")
  const cookie = await t.signIn("root")
  const served = serveApp(t)
  stop = served.stop
  const foreign = await fetch(`${served.url}/api/containers/nothing/shell`, {
    headers: { ...upgrade, cookie, origin: "https://evil.example" },
  })
  expect(foreign.status).toBe(403)
  expect((await foreign.json()).error.code).toBe("cross_site")
  // The same cookie from the server's own page gets past the front door (the container does not exist).
  expect(
    (await fetch(`${served.url}/api/containers/nothing/shell`, { headers: { ...upgrade, cookie, origin: served.url } }))
      .status,
  ).toBe(404)
})

test("a viewer is refused a shell; an operator's shell opening and closing are audited", async () => {
  t = await authApp()
  await t.addUser("vera", "viewer")
  await t.addUser("otto", "operator")
  await t.addUser("root", "admin")
  const id = t.engine.addContainer({ name: "web", state: "running" }).id
  const served = serveApp(t)
  stop = served.stop
  const viewer = await fetch(`${served.url}/api/containers/${id}/shell`, {
    headers: { ...upgrade, cookie: await t.signIn("vera") },
  })
  expect(viewer.status).toBe(403)
  const ws = new WebSocket(`${served.url.replace("http", "ws")}/api/containers/${id}/shell`, {
    headers: { cookie: await t.signIn("otto") },
  } as never)
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)))
  ws.close()
  await Bun.sleep(50)
  const { entries } = await (
    await t.call("GET", "/api/audit?route=/api/containers/:id/shell", undefined, { cookie: await t.signIn("root") })
  ).json()
  expect(entries.map((e: any) => [e.user, e.action ?? null, e.status])).toEqual([
    ["otto", "ws.close", 101],
    ["otto", "ws.open", 101],
    ["vera", null, 403],
  ])
  expect(entries[0].target).toEqual({ id })
})

test("a guessed, malformed or expired session id opens nothing", async () => {
  t = await authApp({ SVC_AUTH_SESSION_IDLE: "600", SVC_AUTH_SESSION_MAX: "3600" })
  await t.addUser("ann", "viewer")
  for (const cookie of [
    "hm_session=",
    "hm_session=x",
    `hm_session=${"A".repeat(43)}`,
    "hm_session=../../auth/users.json",
    "other=1",
  ])
    expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(401)
  const cookie = await t.signIn("ann")
  t.clock.now += 599_000
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  t.clock.now += 599_000
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  t.clock.now += 601_000
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(401)
  const busy = await t.signIn("ann")
  for (let i = 0; i < 7; i++) {
    t.clock.now += 500_000
    const status = (await t.call("GET", "/api/containers", undefined, { cookie: busy })).status
    expect({ i, status }).toEqual({ i, status: i < 7 && 500_000 * (i + 1) < 3_600_000 ? 200 : 401 })
  }
  // The session id is never stored as it is.
  for (const f of authFiles(t.dataDir)) expect(f.text).not.toContain(busy.split("=")[1]!)
})

test("proxy mode believes Remote-User only from a trusted peer, maps groups to roles, and never makes an admin by default", async () => {
  t = await authApp({
    SVC_AUTH: "proxy",
    SVC_AUTH_TRUSTED_PROXIES: "127.0.0.1/32",
    SVC_AUTH_ROLE_MAP: "admins=admin,ops=operator",
  })
  const served = serveApp(t)
  stop = served.stop
  const get = (path: string, headers: Record<string, string>, url = served.url) => fetch(`${url}${path}`, { headers })
  expect(
    await (await get("/api/auth/me", { "remote-user": "ann", "remote-groups": "staff, ops" })).json(),
  ).toMatchObject({ user: "ann", role: "operator", source: "proxy" })
  expect((await get("/api/containers", { "remote-user": "ann", "remote-groups": "staff, ops" })).status).toBe(200)
  expect(
    (
      await fetch(`${served.url}/api/prune/images`, {
        method: "POST",
        headers: { "remote-user": "ann", "remote-groups": "ops" },
      })
    ).status,
  ).toBe(403)
  expect((await get("/api/containers", { "remote-user": "ann", "remote-groups": "staff" })).status).toBe(403)
  expect((await get("/api/containers", { "remote-user": "ann" })).status).toBe(403)
  expect((await get("/api/containers", { "remote-user": "ann bob", "remote-groups": "admins" })).status).toBe(401)
  // In process, the request has no peer address: it is no trusted proxy.
  expect(
    (await t.call("GET", "/api/containers", undefined, { "remote-user": "root", "remote-groups": "admins" })).status,
  ).toBe(401)
  t.close()
  t = await authApp({ SVC_AUTH: "proxy", SVC_AUTH_TRUSTED_PROXIES: "10.0.0.0/8", SVC_AUTH_ROLE_MAP: "*=admin" })
  stop()
  const untrusted = serveApp(t)
  stop = untrusted.stop
  expect(
    (await get("/api/containers", { "remote-user": "root", "remote-groups": "admins" }, untrusted.url)).status,
  ).toBe(401)
})

test("a user limited to some stacks acts on those only, reads elsewhere, and sees only theirs in the list", async () => {
  const engine = new FakeEngine()
  t = await authApp({}, { engine, compose: new FakeCompose(engine) })
  await t.addUser("root", "admin")
  await t.addUser("shopkeeper", "operator", ["shop"])
  const root = await t.signIn("root")
  for (const name of ["shop", "blog"])
    expect(
      (
        await t.call(
          "POST",
          "/api/stacks",
          { name, content: twoServices, env: [{ key: "TOKEN", value: "x", secret: true }] },
          { cookie: root },
        )
      ).status,
    ).toBe(201)
  const cookie = await t.signIn("shopkeeper")
  expect((await t.call("POST", "/api/stacks/shop/restart", undefined, { cookie })).status).toBe(200)
  expect((await t.call("POST", "/api/stacks/blog/restart", undefined, { cookie })).status).toBe(403)
  expect((await t.call("GET", "/api/stacks/blog/env", undefined, { cookie })).status).toBe(403)
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  expect((await t.call("POST", "/api/images/scan", undefined, { cookie })).status).toBe(403)
  expect((await t.call("POST", "/api/stacks", { name: "blog", content: twoServices }, { cookie })).status).toBe(403)
  const listed = await (await t.call("GET", "/api/stacks", undefined, { cookie })).json()
  expect(listed.map((s: any) => s.name)).toEqual(["shop"])
})

test("the audit log holds every change without a body: an environment's keys at most, never a value", async () => {
  const engine = new FakeEngine()
  t = await authApp({}, { engine, compose: new FakeCompose(engine) })
  await t.addUser("root", "admin")
  const cookie = await t.signIn("root")
  const SECRET = "pa55-very-secret"
  await t.call(
    "POST",
    "/api/stacks",
    { name: "demo", content: twoServices, env: [{ key: "TOKEN", value: SECRET, secret: true }] },
    { cookie },
  )
  await t.call("PUT", "/api/stacks/demo/env", [{ key: "TOKEN", value: `${SECRET}-2` }], { cookie })
  await t.call("POST", "/api/users", { name: "ann", password: PASSWORD, role: "viewer" }, { cookie })
  const log = readFileSync(t.ctx.auth.audit.file, "utf8")
  for (const secret of [SECRET, PASSWORD, cookie.split("=")[1]!]) expect(log).not.toContain(secret)
  const { entries } = await (await t.call("GET", "/api/audit", undefined, { cookie })).json()
  expect(entries.map((e: any) => `${e.method} ${e.route} ${JSON.stringify(e.target)} ${e.status}`)).toEqual([
    "POST /api/users {} 201",
    'PUT /api/stacks/:name/env {"name":"demo"} 200',
    "POST /api/stacks {} 201",
    "POST /api/auth/login {} 200",
  ])
})

test("another server of the cluster, with the cluster token, is the cluster: it registers, cleans up after a copy, and is audited as such", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  const root = await t.signIn("root")
  const { token } = await (await t.call("POST", "/api/cluster/token", undefined, { cookie: root })).json()
  const cluster = { authorization: `Bearer ${token}` }
  expect((await t.call("DELETE", "/api/volumes/nothing-here", undefined, cluster)).status).toBe(404)
  expect(
    (await t.call("DELETE", "/api/volumes/nothing-here", undefined, { authorization: "Bearer not-the-token" })).status,
  ).toBe(401)
  const registered = await t.call("POST", "/api/cluster/register", { token: "wrong", server_id: "abc" })
  expect(registered.status).toBe(403)
  expect((await registered.json()).error.code).toBe("invalid_token")
  expect((await t.call("POST", "/api/tokens", { name: "x" }, cluster)).status).toBe(403)
  const { entries } = await (await t.call("GET", "/api/audit?route=/api/volumes", undefined, { cookie: root })).json()
  expect(entries.map((e: any) => [e.user, e.source, e.status])).toEqual([
    [null, null, 401],
    ["cluster", "cluster", 404],
  ])
})

test("an open shell closes when its user is removed or changed, or when the token it was opened with is revoked", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  await t.addUser("otto", "operator")
  await t.addUser("olga", "operator")
  t.engine.addContainer({ name: "web", state: "running" })
  const served = serveApp(t)
  stop = served.stop
  const root = await t.signIn("root")
  const open = async (headers: Record<string, string>) => {
    const ws = new WebSocket(`${served.url.replace("http", "ws")}/api/containers/web/shell`, { headers } as never)
    const closed = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)))
    await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)))
    return { ws, closed }
  }
  const bySession = await open({ cookie: await t.signIn("otto") })
  const { token, id } = await t.token(await t.signIn("olga"))
  const byToken = await open({ authorization: `Bearer ${token}` })
  const untouched = await open({ cookie: root })
  expect((await t.call("PATCH", "/api/users/otto", { role: "viewer" }, { cookie: root })).status).toBe(200)
  expect(await bySession.closed).toBe(1008)
  expect((await t.call("DELETE", `/api/tokens/${id}`, undefined, { cookie: root })).status).toBe(200)
  expect(await byToken.closed).toBe(1008)
  expect(untouched.ws.readyState).toBe(WebSocket.OPEN)
  untouched.ws.close()
})

test("an open event stream ends when its user is removed; another user's runs on", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  await t.addUser("vera", "viewer")
  const root = await t.signIn("root")
  const reading = (await t.call("GET", "/api/events", undefined, { cookie: await t.signIn("vera") })).body!.getReader()
  const other = (await t.call("GET", "/api/events", undefined, { cookie: root })).body!.getReader()
  const ended = (async () => {
    while (!(await reading.read()).done);
    return true
  })()
  expect((await t.call("DELETE", "/api/users/vera", undefined, { cookie: root })).status).toBe(200)
  expect(await ended).toBe(true)
  const next = await Promise.race([
    other.read().then((r) => (r.done ? "ended" : "data")),
    Bun.sleep(100).then(() => "still open"),
  ])
  expect(["data", "still open"]).toContain(next)
  await other.cancel()
})
