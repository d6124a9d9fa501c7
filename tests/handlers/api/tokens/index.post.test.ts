import { afterEach, expect, test } from "bun:test"
import { authApp, type AuthTestApp } from "../../../support/auth.ts"
import { authFiles } from "../../../support/users.ts"

let t: AuthTestApp
afterEach(() => t.close())

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

test("a token is shown once, kept as its SHA-256, and opens the API with its own role", async () => {
  t = await authApp()
  await t.addUser("ann", "operator")
  const cookie = await t.signIn("ann")
  const res = await t.call("POST", "/api/tokens", { name: "ci", role: "viewer" }, { cookie })
  expect(res.status).toBe(201)
  const created = await res.json()
  expect(created.token).toMatch(/^hm_[A-Za-z0-9_-]{43}$/)
  expect(created).toMatchObject({ name: "ci", user: "ann", role: "viewer", mcp_confirm: true })
  const stored = authFiles(t.dataDir)
    .map((f) => f.text)
    .join("\n")
  expect(stored).not.toContain(created.token)
  expect(stored).toContain(new Bun.CryptoHasher("sha256").update(created.token).digest("hex"))
  expect((await t.call("GET", "/api/containers", undefined, bearer(created.token))).status).toBe(200)
  expect((await t.call("POST", "/api/containers/x/action", { action: "stop" }, bearer(created.token))).status).toBe(403)
  const listed = await (await t.call("GET", "/api/tokens", undefined, { cookie })).json()
  expect(listed).toEqual([expect.objectContaining({ id: created.id, name: "ci" })])
  expect(JSON.stringify(listed)).not.toContain(created.token)
})

test("a token's role is at most its owner's; only an admin makes one for someone else; a token makes no token", async () => {
  t = await authApp()
  await t.addUser("ann", "operator")
  await t.addUser("root", "admin")
  const ann = await t.signIn("ann")
  expect((await t.call("POST", "/api/tokens", { name: "x", role: "admin" }, { cookie: ann })).status).toBe(403)
  expect((await t.call("POST", "/api/tokens", { name: "x", user: "root" }, { cookie: ann })).status).toBe(403)
  const root = await t.signIn("root")
  const forAnn = await t.call("POST", "/api/tokens", { name: "for ann", user: "ann" }, { cookie: root })
  expect(await forAnn.json()).toMatchObject({ user: "ann", role: "operator" })
  expect(
    (await t.call("POST", "/api/tokens", { name: "x", user: "ann", role: "admin" }, { cookie: root })).status,
  ).toBe(403)
  const { token } = await t.token(ann)
  expect((await t.call("POST", "/api/tokens", { name: "y" }, bearer(token))).status).toBe(403)
})

test("an expired token, a revoked one and one of a deleted user are 401", async () => {
  t = await authApp()
  await t.addUser("ann", "operator")
  await t.addUser("root", "admin")
  const ann = await t.signIn("ann")
  const expiring = await t.token(ann, { expires_in: 60 })
  const revoked = await t.token(ann)
  expect((await t.call("GET", "/api/containers", undefined, bearer(expiring.token))).status).toBe(200)
  t.clock.now += 60_000
  expect((await t.call("GET", "/api/containers", undefined, bearer(expiring.token))).status).toBe(401)
  expect((await t.call("DELETE", `/api/tokens/${revoked.id}`, undefined, { cookie: ann })).status).toBe(200)
  expect((await t.call("GET", "/api/containers", undefined, bearer(revoked.token))).status).toBe(401)
  const kept = await t.token(ann)
  expect((await t.call("DELETE", "/api/users/ann", undefined, { cookie: await t.signIn("root") })).status).toBe(200)
  expect((await t.call("GET", "/api/containers", undefined, bearer(kept.token))).status).toBe(401)
})

test("the last-used time is written at most once a minute, and the first use in a minute is audited", async () => {
  t = await authApp()
  await t.addUser("ann", "admin")
  const cookie = await t.signIn("ann")
  const { token, id } = await t.token(cookie)
  const start = t.clock.now
  for (let i = 0; i < 3; i++) await t.call("GET", "/api/containers", undefined, bearer(token))
  expect(t.ctx.auth.tokens.get(id)!.last_used).toBe(start)
  t.clock.now += 61_000
  await t.call("GET", "/api/containers", undefined, bearer(token))
  expect(t.ctx.auth.tokens.get(id)!.last_used).toBe(start + 61_000)
  const { entries } = await (await t.call("GET", `/api/audit?route=/api/containers`, undefined, { cookie })).json()
  expect(entries.filter((e: any) => e.token === id && e.method === "GET")).toHaveLength(2)
})

test("someone else's token is not found for a user who is no admin", async () => {
  t = await authApp()
  await t.addUser("ann", "operator")
  await t.addUser("bob", "operator")
  const { id } = await t.token(await t.signIn("ann"))
  expect((await t.call("DELETE", `/api/tokens/${id}`, undefined, { cookie: await t.signIn("bob") })).status).toBe(404)
  expect(t.ctx.auth.tokens.get(id)).toBeDefined()
})
