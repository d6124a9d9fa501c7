import { afterEach, expect, test } from "bun:test"
import { authApp, type AuthTestApp } from "../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("sign-out ends the session on the server and clears the cookie; the old cookie opens nothing", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const other = await t.signIn("ann")
  const res = await t.call("POST", "/api/auth/logout", undefined, { cookie })
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ signed_out: true })
  expect(res.headers.get("set-cookie")).toMatch(/^hm_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/)
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(401)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: other })).status).toBe(200)
  expect(await (await t.call("POST", "/api/auth/logout")).json()).toEqual({ signed_out: false })
})

test("a sign-out from another site ends nothing", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  expect(
    await (await t.call("POST", "/api/auth/logout", undefined, { cookie, "sec-fetch-site": "same-site" })).json(),
  ).toEqual({ signed_out: false })
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
})
