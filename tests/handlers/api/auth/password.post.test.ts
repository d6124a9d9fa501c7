// Changing one's own password: the current one is checked under the sign-in limits; the change ends
// the user's other sessions and tokens and keeps the session that made it.
import { afterEach, expect, test } from "bun:test"
import { authApp, PASSWORD, type AuthTestApp } from "../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("a new password ends the other sessions and the tokens; this session stays, and the new password signs in", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  await t.addUser("ann", "viewer")
  const here = await t.signIn("ann")
  const there = await t.signIn("ann")
  const { token } = await t.token(here)
  const res = await t.call(
    "POST",
    "/api/auth/password",
    { current: PASSWORD, password: "a new long one" },
    { cookie: here },
  )
  expect(res.status).toBe(200)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: here })).status).toBe(200)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: there })).status).toBe(401)
  expect((await t.call("GET", "/api/containers", undefined, { authorization: `Bearer ${token}` })).status).toBe(401)
  expect((await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })).status).toBe(401)
  await t.signIn("ann", "a new long one")
})

test("a wrong current password is 403 and counts as a failed sign-in; past the free ones the user waits", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const statuses: number[] = []
  for (let i = 0; i < 6; i++)
    statuses.push(
      (await t.call("POST", "/api/auth/password", { current: "wrong!!!!", password: "a new long one" }, { cookie }))
        .status,
    )
  expect(statuses).toEqual([403, 403, 403, 403, 403, 429])
  expect((await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })).status).toBe(429)
})

test("a token, a weak new password: refused, and nothing changes", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const { token } = await t.token(cookie)
  const byToken = await t.call(
    "POST",
    "/api/auth/password",
    { current: PASSWORD, password: "a new long one" },
    { authorization: `Bearer ${token}` },
  )
  expect(byToken.status).toBe(403)
  const weak = await t.call("POST", "/api/auth/password", { current: PASSWORD, password: "short" }, { cookie })
  expect(weak.status).toBe(400)
  await t.signIn("ann")
})
