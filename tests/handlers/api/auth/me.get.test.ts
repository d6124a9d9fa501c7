import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"
import { authApp, type AuthTestApp } from "../../../support/auth.ts"

let t: TestApp | AuthTestApp
afterEach(() => t.close())

test("nobody signed in: 401 with the sign-in modes, so a page knows what to offer", async () => {
  t = await authApp({ SVC_AUTH: "local,proxy", SVC_AUTH_TRUSTED_PROXIES: "10.0.0.0/8" })
  const res = await t.call("GET", "/api/auth/me")
  expect(res.status).toBe(401)
  expect(await res.json()).toEqual({
    modes: ["local", "proxy"],
    error: { code: "unauthorized", message: "nobody is signed in" },
  })
})

test("a token's holder sees the token's role, stacks and id", async () => {
  const a = await authApp()
  t = a
  await a.addUser("ann", "operator")
  const { token, id } = await a.token(await a.signIn("ann"), { role: "viewer", stacks: ["shop"] })
  expect(await (await a.call("GET", "/api/auth/me", undefined, { authorization: `Bearer ${token}` })).json()).toEqual({
    user: "ann",
    role: "viewer",
    source: "local",
    stacks: ["shop"],
    token: id,
    modes: ["local"],
  })
})

test("404 while sign-in is off", async () => {
  t = await testApp()
  expect((await t.call("GET", "/api/auth/me")).status).toBe(404)
})

test("asking who is signed in while nobody is leaves no audit entry; a refused read of another route does", async () => {
  const a = await authApp()
  t = a
  await a.addUser("root", "admin")
  expect((await a.call("GET", "/api/auth/me")).status).toBe(401)
  expect((await a.call("GET", "/api/containers")).status).toBe(401)
  const { entries } = await (await a.call("GET", "/api/audit", undefined, { cookie: await a.signIn("root") })).json()
  const refusals = entries.filter((e: { status: number }) => e.status === 401).map((e: { route: string }) => e.route)
  expect(refusals).toEqual(["/api/containers"])
})
