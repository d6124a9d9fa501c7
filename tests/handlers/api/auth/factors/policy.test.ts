// SVC_AUTH_MFA: a user it covers who has no factor gets, after the password, a pending state that
// reaches enrolment only; enrolling begins the session. A session of such a user (made before the
// policy) reaches nothing but enrolment. API tokens are unaffected. The last factor stays.
import { afterEach, expect, test } from "bun:test"
import { authApp, PASSWORD, type AuthTestApp } from "../../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("admins: an admin without a factor is sent to enrol, reaches nothing else, and is signed in once enrolled", async () => {
  t = await authApp({ SVC_AUTH_MFA: "admins" })
  await t.addUser("root", "admin")
  await t.addUser("ann", "viewer")
  // A viewer is not covered: the password signs in.
  await t.signIn("ann")
  const res = await t.call("POST", "/api/auth/login", { user: "root", password: PASSWORD })
  expect(res.status).toBe(202)
  expect(await res.json()).toEqual({ next: "enrol", methods: [] })
  const pending = res.headers.get("set-cookie")!.split(";")[0]!
  for (const [method, path, status] of [
    ["GET", "/api/containers", 401],
    ["GET", "/api/users", 401],
    ["GET", "/api/sessions", 401],
    ["DELETE", "/api/users/ann/factors", 401],
    ["POST", "/api/auth/factors/recovery-codes", 409],
  ] as const)
    expect([method, path, (await t.call(method, path, undefined, { cookie: pending })).status]).toEqual([
      method,
      path,
      status,
    ])
  expect(await (await t.call("GET", "/api/auth/me", undefined, { cookie: pending })).json()).toMatchObject({
    pending: "enrol",
    user: "root",
  })
  expect((await (await t.call("GET", "/api/auth/factors", undefined, { cookie: pending })).json()).required).toBe(true)
  const { res: enrolled, codes } = await t.enrolTotp(pending)
  expect(codes).toHaveLength(10)
  const session = enrolled.headers.get("set-cookie")!.split(";")[0]!
  expect(session).toStartWith("hm_session=")
  expect((await t.call("GET", "/api/users", undefined, { cookie: session })).status).toBe(200)
  // The pending state is spent.
  expect((await t.call("GET", "/api/auth/factors", undefined, { cookie: pending })).status).toBe(401)
})

test("all: a session from before the policy reaches enrolment only; a token works as before", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const { token } = await t.token(cookie)
  t.ctx.auth.config.mfa = "all"
  const refused = await t.call("GET", "/api/containers", undefined, { cookie })
  expect(refused.status).toBe(403)
  expect((await refused.json()).error.code).toBe("enrolment_required")
  expect(await (await t.call("GET", "/api/auth/me", undefined, { cookie })).json()).toMatchObject({ enrol: true })
  expect((await t.call("GET", "/api/containers", undefined, { authorization: `Bearer ${token}` })).status).toBe(200)
  await t.enrolTotp(cookie)
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  expect((await (await t.call("GET", "/api/auth/me", undefined, { cookie })).json()).enrol).toBeUndefined()
  // The last factor stays while the policy requires one.
  const kept = await t.call("DELETE", "/api/auth/factors/totp", { password: PASSWORD }, { cookie })
  expect(kept.status).toBe(409)
  expect((await kept.json()).error.code).toBe("factor_required")
})

test("an admin resets another user's factors: their sessions end, the password alone signs in, audited", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  await t.addUser("ann", "viewer")
  const ann = await t.signIn("ann")
  const { secret } = await t.enrolTotp(ann)
  const root = await t.signIn("root")
  expect((await t.call("DELETE", "/api/users/root/factors", undefined, { cookie: ann })).status).toBe(403)
  const res = await t.call("DELETE", "/api/users/ann/factors", undefined, { cookie: root })
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ reset: "ann" })
  expect((await t.call("GET", "/api/containers", undefined, { cookie: ann })).status).toBe(401)
  await t.signIn("ann")
  expect((await t.call("DELETE", "/api/users/nobody/factors", undefined, { cookie: root })).status).toBe(404)
  const { entries } = await (await t.call("GET", "/api/audit?limit=100", undefined, { cookie: root })).json()
  const mfa = entries.filter((e: any) => e.action?.startsWith("mfa.")).map((e: any) => [e.user, e.action, e.status])
  expect(mfa.reverse()).toEqual([
    ["ann", "mfa.totp.enrol", 200],
    ["root", "mfa.reset", 200],
    ["root", "mfa.reset", 404],
  ])
  expect(JSON.stringify(entries)).not.toContain(secret)
})

test("a user removed loses their factors: one added again under the name starts with none", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  await t.addUser("ann", "viewer")
  await t.enrolTotp(await t.signIn("ann"))
  await t.call("DELETE", "/api/users/ann", undefined, { cookie: await t.signIn("root") })
  await t.addUser("ann", "viewer")
  await t.signIn("ann")
})
