import { afterEach, expect, test } from "bun:test"
import { authApp, PASSWORD, type AuthTestApp } from "../../../support/auth.ts"
import { authFiles } from "../../../support/users.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("an admin adds, lists, changes and removes users; a new role or stacks are followed at once by sessions and tokens, a new password ends them", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  const root = await t.signIn("root")
  const created = await t.call(
    "POST",
    "/api/users",
    { name: "ann", password: PASSWORD, role: "viewer" },
    { cookie: root },
  )
  expect(created.status).toBe(201)
  expect(await created.json()).toEqual({ name: "ann", role: "viewer", created: expect.any(String) })
  expect(
    (await t.call("POST", "/api/users", { name: "ann", password: PASSWORD, role: "viewer" }, { cookie: root })).status,
  ).toBe(409)
  const users = await (await t.call("GET", "/api/users", undefined, { cookie: root })).json()
  expect(users.map((u: any) => u.name)).toEqual(["ann", "root"])
  expect(JSON.stringify(users)).not.toContain("argon2")

  const ann = await t.signIn("ann")
  const { token } = await t.token(ann)
  const asToken = { authorization: `Bearer ${token}` }
  const changed = await t.call("PATCH", "/api/users/ann", { role: "operator", stacks: ["shop"] }, { cookie: root })
  expect(await changed.json()).toMatchObject({ name: "ann", role: "operator", stacks: ["shop"] })
  // The session follows the new role and stacks at once; the token, made as a viewer's, stays one.
  expect(await (await t.call("GET", "/api/auth/me", undefined, { cookie: ann })).json()).toMatchObject({
    role: "operator",
    stacks: ["shop"],
  })
  expect(await (await t.call("GET", "/api/auth/me", undefined, asToken)).json()).toMatchObject({
    role: "viewer",
    stacks: ["shop"],
  })

  await t.call("PATCH", "/api/users/ann", { password: "another password" }, { cookie: root })
  expect((await t.call("GET", "/api/containers", undefined, { cookie: ann })).status).toBe(401)
  expect((await t.call("GET", "/api/containers", undefined, asToken)).status).toBe(401)
  expect((await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })).status).toBe(401)
  expect((await t.call("POST", "/api/auth/login", { user: "ann", password: "another password" })).status).toBe(200)

  expect((await t.call("DELETE", "/api/users/ann", undefined, { cookie: root })).status).toBe(200)
  expect((await t.call("DELETE", "/api/users/ann", undefined, { cookie: root })).status).toBe(404)
})

test("a weak password or a bad name is a 400; the files are the service's own (0600)", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  const root = await t.signIn("root")
  expect(
    (await t.call("POST", "/api/users", { name: "ann", password: "short", role: "viewer" }, { cookie: root })).status,
  ).toBe(400)
  expect(
    (await t.call("POST", "/api/users", { name: "a b", password: PASSWORD, role: "viewer" }, { cookie: root })).status,
  ).toBe(400)
  const { statSync } = await import("node:fs")
  const files = authFiles(t.dataDir)
  expect(files.map((f) => f.path.slice(t.dataDir.length))).toContain("/auth/users.json")
  expect(files.filter((f) => f.path.includes("/auth/sessions/")).length).toBe(1)
  for (const f of files) expect([f.path, f.mode]).toEqual([f.path, 0o600])
  for (const d of ["auth", "auth/sessions"]) expect(statSync(`${t.dataDir}/${d}`).mode & 0o777).toBe(0o700)
})

test("the last admin cannot be removed or made something else", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  const root = await t.signIn("root")
  const demoted = await t.call("PATCH", "/api/users/root", { role: "operator" }, { cookie: root })
  expect(demoted.status).toBe(409)
  expect((await demoted.json()).error.code).toBe("last_admin")
  expect((await t.call("DELETE", "/api/users/root", undefined, { cookie: root })).status).toBe(409)
  expect((await t.call("GET", "/api/users", undefined, { cookie: root })).status).toBe(200)
  await t.addUser("second", "admin")
  expect((await t.call("DELETE", "/api/users/root", undefined, { cookie: root })).status).toBe(200)
})
