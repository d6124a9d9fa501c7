import { afterEach, expect, test } from "bun:test"
import { authApp, PASSWORD, type AuthTestApp } from "../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("a local user signs in: an HttpOnly SameSite=Lax cookie that opens the API, and /api/auth/me says who", async () => {
  t = await authApp()
  await t.addUser("ann", "operator")
  expect((await t.call("GET", "/api/containers")).status).toBe(401)
  const res = await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ user: "ann", role: "operator", source: "local", modes: ["local"] })
  const setCookie = res.headers.get("set-cookie")!
  expect(setCookie).toMatch(/^hm_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/)
  const cookie = setCookie.split(";")[0]!
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  expect(await (await t.call("GET", "/api/auth/me", undefined, { cookie })).json()).toMatchObject({ user: "ann", role: "operator" })
})
