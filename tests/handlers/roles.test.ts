// Every route of the manifest, with sign-in on, called by nobody, by forged and dead credentials and
// by each role: the answer is the one lib/auth/roles.ts and the route's `role` decide (a route that
// declares no role fails here). Allowed callers get past the front door (whatever the route answers
// then: its 400 or 404 for made-up input); others get 401 without a credential that holds and 403
// for a role too low. WebSocket upgrades are checked the same way on a served app.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ROLES, permits, type Role, type RouteRole } from "#lib/auth/roles.ts"
import { routeOf } from "#lib/http/manifest.ts"
import { loadRoutes, type RouteRow } from "#lib/service/handler.ts"
import { routes } from "../../routes.gen.ts"
import { serveApp } from "../support/app.ts"
import { authApp, PASSWORD, type AuthTestApp } from "../support/auth.ts"

const rows = await loadRoutes(routes)
const upgrade = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
}

/** The route's path with made-up parameters (nothing of that name exists). */
const pathOf = (row: RouteRow) =>
  routeOf(row.file)
    .path.split("/")
    .map((seg) =>
      seg === "*"
        ? "api/health"
        : seg.startsWith(":")
          ? seg === ":id" && row.file.includes("tokens")
            ? "0123456789ab"
            : "nothing-here"
          : seg,
    )
    .join("/")

let t: AuthTestApp
let served: ReturnType<typeof serveApp>
const dead: Record<string, string> = {}

beforeAll(async () => {
  t = await authApp({ SVC_METRICS: "on" })
  served = serveApp(t)
  for (const role of ROLES) await t.addUser(role, role)
  await t.addUser("gone", "admin")
  const admin = await t.signIn("admin")
  dead["forged cookie"] = `cookie=hm_session=${"A".repeat(43)}`
  dead["expired token"] = `bearer=${(await t.token(admin, { name: "short", expires_in: 60 })).token}`
  const revoked = await t.token(admin, { name: "revoked" })
  await t.call("DELETE", `/api/tokens/${revoked.id}`, undefined, { cookie: admin })
  dead["revoked token"] = `bearer=${revoked.token}`
  dead["token of a deleted user"] = `bearer=${(await t.token(await t.signIn("gone"))).token}`
  dead["session of a deleted user"] = `cookie=${await t.signIn("gone")}`
  await t.call("DELETE", "/api/users/gone", undefined, { cookie: admin })
  dead["cluster-looking bearer"] = "bearer=not-an-api-token"
  t.clock.now += 120_000
})
afterAll(() => {
  served.stop()
  t.close()
})

const headersOf = (credential: string | undefined): Record<string, string> => {
  if (!credential) return {}
  const [kind, value] = [credential.slice(0, credential.indexOf("=")), credential.slice(credential.indexOf("=") + 1)]
  return kind === "cookie" ? { cookie: value } : { authorization: `Bearer ${value}` }
}

/** The route's answer status for a caller with these headers; an event stream is closed at once. */
async function statusOf(row: RouteRow, headers: Record<string, string>): Promise<number> {
  if (row.method === "WS")
    return (await fetch(`${served.url}${pathOf(row)}`, { headers: { ...upgrade, ...headers } })).status
  const method = row.method === "ALL" ? "GET" : row.method
  const res = await t.call(method, pathOf(row), undefined, headers)
  await res.body?.cancel()
  return res.status
}

const need = (row: RouteRow): RouteRole | undefined => row.mod.role

/**
 * Public routes that answer 401 themselves: GET /api/auth/me when nobody is signed in, a stack's git
 * webhook without the stack's signature, and second factors' setup (for a session, or a sign-in sent
 * to enrol, which reaches no other route) unless its body is refused first.
 */
const answers401 = (row: RouteRow) =>
  row.file.endsWith("auth/me.get.ts") ||
  row.file.endsWith("git/webhook.post.ts") ||
  (row.file.includes("auth/factors/") && !row.mod.body)

test("every handler file declares its role", () => {
  const without = rows.filter((r) => !["public", ...ROLES].includes(r.mod.role as string)).map((r) => r.file)
  expect(without).toEqual([])
})

describe.each(rows.map((r) => [`${r.method} ${routeOf(r.file).path}`, r] as const))("%s", (_, row) => {
  test("without a credential that holds: 401 unless public", async () => {
    for (const credential of [undefined, ...Object.values(dead)]) {
      const status = await statusOf(row, headersOf(credential))
      if (need(row) === "public" && !answers401(row)) expect([401, 403]).not.toContain(status)
      else expect({ credential, status }).toEqual({ credential, status: 401 })
    }
  })

  test.each(ROLES.map((r) => [r]))("as %s: through when the role allows, else 403", async (role: Role) => {
    const cookie = (
      await t.ctx.auth.startSession({ user: role, role, source: "local" }, new Request("http://127.0.0.1/"))
    ).cookie.split(";")[0]!
    const status = await statusOf(row, { cookie })
    const expected = permits(role, need(row)!) ? "through" : 403
    const refused = [401, 403].includes(status) && !(status === 401 && answers401(row))
    expect({ role, status: refused ? status : "through" }).toEqual({ role, status: expected })
  })
})

test("a sign-in waiting for its second factor or its enrolment reaches no route; a session that must enrol reaches none but enrolment", async () => {
  const pendingOf = async (user: string) => {
    const res = await t.call("POST", "/api/auth/login", { user, password: PASSWORD })
    expect(res.status).toBe(202)
    return res.headers.get("set-cookie")!.split(";")[0]!
  }
  await t.addUser("twofa", "admin")
  await t.enrolTotp(await t.signIn("twofa"))
  await t.addUser("late", "admin")
  const late = await t.signIn("late")
  const secondFactor = await pendingOf("twofa")
  t.ctx.auth.config.mfa = "all"
  try {
    const enrol = await pendingOf("late")
    for (const row of rows.filter((r) => need(r) !== "public")) {
      const route = `${row.method} ${routeOf(row.file).path}`
      for (const cookie of [secondFactor, enrol])
        expect({ route, status: await statusOf(row, { cookie }) }).toEqual({ route, status: 401 })
      if (row.method === "WS") {
        expect({ route, status: await statusOf(row, { cookie: late }) }).toEqual({ route, status: 403 })
        continue
      }
      const res = await t.call(row.method === "ALL" ? "GET" : row.method, pathOf(row), undefined, { cookie: late })
      const code = (await res.json().catch(() => ({}))).error?.code
      expect({ route, status: res.status, code }).toEqual({ route, status: 403, code: "enrolment_required" })
    }
  } finally {
    t.ctx.auth.config.mfa = "off"
  }
})

test("a user limited to some stacks reaches only theirs under /api/stacks/:name, and elsewhere only what a viewer reads", async () => {
  await t.addUser("shopkeeper", "operator", ["shop"])
  const cookie = await t.signIn("shopkeeper")
  const answer = async (method: string, path: string) => {
    const res = await t.call(method, path, method === "POST" ? {} : undefined, { cookie })
    return { path: `${method} ${path}`, status: res.status, code: (await res.json().catch(() => ({}))).error?.code }
  }
  const refused = (method: string, path: string) => ({ path: `${method} ${path}`, status: 403, code: "forbidden" })
  // Their own stack: past the front door, to the route's own 404 (there is no such stack).
  for (const [method, path] of [
    ["GET", "/api/stacks/shop"],
    ["GET", "/api/stacks/shop/env"],
    ["POST", "/api/stacks/shop/restart"],
  ] as const)
    expect(await answer(method, path)).toEqual({ path: `${method} ${path}`, status: 404, code: expect.any(String) })
  for (const [method, path] of [
    ["GET", "/api/stacks/other"],
    ["GET", "/api/stacks/other/env"],
    ["POST", "/api/stacks/other/restart"],
    ["POST", "/api/stacks"],
    ["POST", "/api/prune/images"],
  ] as const)
    expect(await answer(method, path)).toEqual(refused(method, path))
  expect((await t.call("HEAD", "/api/stacks/other", undefined, { cookie })).status).toBe(403)
  expect((await answer("GET", "/api/containers")).status).toBe(200)
})
