import { afterEach, expect, test } from "bun:test"
import { authApp, PASSWORD, type AuthTestApp } from "../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("the setup token creates the first admin once and signs them in; a second use is refused", async () => {
  t = await authApp()
  const token = t.ctx.auth.setupToken()!
  expect(t.ctx.auth.setupToken()).toBeUndefined()
  expect((await t.call("POST", "/api/auth/setup", { token: "guess", user: "root", password: PASSWORD })).status).toBe(
    403,
  )
  const res = await t.call("POST", "/api/auth/setup", { token, user: "root", password: PASSWORD })
  expect(res.status).toBe(201)
  expect(await res.json()).toMatchObject({ user: "root", role: "admin", source: "local" })
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!
  expect((await t.call("GET", "/api/users", undefined, { cookie })).status).toBe(200)
  expect((await t.call("POST", "/api/auth/setup", { token, user: "mallory", password: PASSWORD })).status).toBe(403)
  expect(t.ctx.auth.users.list().map((u) => u.name)).toEqual(["root"])
})

test("no setup token once an admin exists, nor without local sign-in", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  expect(t.ctx.auth.setupToken()).toBeUndefined()
  t.close()
  t = await authApp({ SVC_AUTH: "proxy", SVC_AUTH_TRUSTED_PROXIES: "127.0.0.1" })
  expect(t.ctx.auth.setupToken()).toBeUndefined()
})

test("a weak password is refused and the token still works", async () => {
  t = await authApp()
  const token = t.ctx.auth.setupToken()!
  expect((await t.call("POST", "/api/auth/setup", { token, user: "root", password: "short" })).status).toBe(400)
  expect((await t.call("POST", "/api/auth/setup", { token, user: "root", password: PASSWORD })).status).toBe(201)
})
