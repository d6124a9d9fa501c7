import { afterEach, expect, test } from "bun:test"
import { PAIR_FREE } from "#lib/auth/limiter.ts"
import { LANE_WAITING } from "#lib/auth/passwords.ts"
import { authApp, PASSWORD, type AuthTestApp } from "../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

const login = (user: string, password: string, headers: Record<string, string> = {}) =>
  t.call("POST", "/api/auth/login", { user, password }, headers)

test("a local user signs in: an HttpOnly SameSite=Lax cookie that opens the API, and /api/auth/me says who", async () => {
  t = await authApp()
  await t.addUser("ann", "operator")
  expect((await t.call("GET", "/api/containers")).status).toBe(401)
  const res = await login("ann", PASSWORD)
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ user: "ann", role: "operator", source: "local", modes: ["local"] })
  const setCookie = res.headers.get("set-cookie")!
  expect(setCookie).toMatch(/^hm_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/)
  const cookie = setCookie.split(";")[0]!
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  expect(await (await t.call("GET", "/api/auth/me", undefined, { cookie })).json()).toMatchObject({
    user: "ann",
    role: "operator",
  })
})

test("the cookie is Secure when the request came over https, or always with SVC_AUTH_COOKIE_SECURE=on", async () => {
  t = await authApp({ SVC_AUTH_COOKIE_SECURE: "on" })
  await t.addUser("ann", "viewer")
  expect((await login("ann", PASSWORD)).headers.get("set-cookie")).toEndWith("; Secure")
})

test("a wrong password and an unknown user are the same 401 and cost one password check each", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  await login("nobody", "warm-up-the-dummy")
  const before = { ...t.calls }
  const wrong = await login("ann", "not the password")
  const afterWrong = { ...t.calls }
  const unknown = await login("nobody", "not the password")
  expect([wrong.status, unknown.status]).toEqual([401, 401])
  expect(await unknown.json()).toEqual(await wrong.json())
  expect(afterWrong.verify - before.verify).toBe(1)
  expect(t.calls.verify - afterWrong.verify).toBe(1)
  expect(t.calls.hash).toBe(afterWrong.hash)
})

test("attempts past the free ones wait twice as long each time: 429 with Retry-After, no password checked", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  for (let i = 0; i < PAIR_FREE; i++) expect((await login("ann", "wrong password")).status).toBe(401)
  const verified = t.calls.verify
  const refused = await login("ann", PASSWORD)
  expect(refused.status).toBe(429)
  expect(refused.headers.get("retry-after")).toBe("1")
  expect(t.calls.verify).toBe(verified)
  t.clock.now += 1000
  expect((await login("ann", "wrong again")).status).toBe(401)
  expect((await login("ann", PASSWORD)).headers.get("retry-after")).toBe("2")
  t.clock.now += 2000
  expect((await login("ann", PASSWORD)).status).toBe(200)
})

test("a burst of sign-ins at once from one address is refused before the passwords are checked, past what its lane holds", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  await login("nobody", "warm-up-the-dummy")
  const verified = t.calls.verify
  const statuses = await Promise.all(
    Array.from({ length: 50 }, (_, i) => login(i % 2 ? "ann" : `u${i}`, "wrong password").then((r) => r.status)),
  )
  const checked = statuses.filter((s) => s === 401).length
  // Two checks run at once while the address asks little, and its lane holds LANE_WAITING more.
  expect(checked).toBe(2 + LANE_WAITING)
  expect(statuses.filter((s) => s === 429).length).toBe(50 - checked)
  expect(t.calls.verify - verified).toBe(checked)
})

test("a user name with a line break, a quote or a header is refused like any unknown user and never reaches the audit log", async () => {
  t = await authApp()
  for (const user of ["ann\r\nSet-Cookie: hm_session=x", 'a"b', "x".repeat(65)]) {
    const res = await login(user, "whatever password")
    expect([400, 401]).toContain(res.status)
    expect(res.headers.get("set-cookie")).toBeNull()
  }
  const log = await Bun.file(t.ctx.auth.audit.file).text()
  expect(log).not.toContain("Set-Cookie")
  expect(log).not.toContain('a\\"b')
  for (const line of log.trim().split("\n")) expect(JSON.parse(line).user).toBeNull()
})

test("every sign-in, good or bad, is in the audit log with the user it named and where it came from", async () => {
  t = await authApp()
  await t.addUser("ann", "admin")
  await login("ann", "wrong password")
  const cookie = await t.signIn("ann")
  const { entries } = await (await t.call("GET", "/api/audit?action=login", undefined, { cookie })).json()
  expect(entries.map((e: any) => [e.user, e.status, e.result])).toEqual([
    ["ann", 200, "ok"],
    ["ann", 401, "denied"],
  ])
})

test("sign-in answers 404 while local sign-in is off", async () => {
  t = await authApp({ SVC_AUTH: "proxy", SVC_AUTH_TRUSTED_PROXIES: "10.0.0.1" })
  expect((await login("ann", PASSWORD)).status).toBe(404)
})
