// The second step of a sign-in with an authenticator app: after the right password a pending state
// (not a session) waits 5 minutes for a code of the step before, at or after now's, each used once,
// or a recovery code, each used once; failures count with the password's under the sign-in limits;
// the audit log has each step and never a code.
import { afterEach, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { unseal } from "#lib/data/sealed.ts"
import { join } from "node:path"
import { codeAt } from "#lib/auth/totp.ts"
import { authApp, PASSWORD, type AuthTestApp } from "../../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

/** ann, a viewer with an authenticator app: its secret and recovery codes. */
async function withTotp() {
  t = await authApp()
  await t.addUser("ann", "viewer")
  await t.addUser("root", "admin")
  return t.enrolTotp(await t.signIn("ann"))
}

const code = (pending: string, value: string) =>
  t.call("POST", "/api/auth/login/code", { code: value }, { cookie: pending })

test("the password alone gives a pending state, not a session; the right code gives the session", async () => {
  const { secret } = await withTotp()
  const res = await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })
  expect(res.status).toBe(202)
  expect(await res.json()).toEqual({ next: "second_factor", methods: ["totp", "recovery_code"] })
  const setCookie = res.headers.get("set-cookie")!
  expect(setCookie).toMatch(/^hm_pending=[\w-]+; Path=\/api\/auth; HttpOnly; SameSite=Strict; Max-Age=300/)
  const pending = setCookie.split(";")[0]!
  expect((await t.call("GET", "/api/containers", undefined, { cookie: pending })).status).toBe(401)
  const me = await t.call("GET", "/api/auth/me", undefined, { cookie: pending })
  expect(me.status).toBe(401)
  expect(await me.json()).toMatchObject({ pending: "second_factor", methods: ["totp", "recovery_code"], user: "ann" })
  t.clock.now += 30_000
  const done = await code(pending, codeAt(secret, t.clock.now))
  expect(done.status).toBe(200)
  expect(await done.json()).toMatchObject({ user: "ann", role: "viewer" })
  const session = done.headers.get("set-cookie")!.split(";")[0]!
  expect(session).toStartWith("hm_session=")
  expect((await t.call("GET", "/api/containers", undefined, { cookie: session })).status).toBe(200)
  // The pending state is spent.
  expect((await code(pending, codeAt(secret, t.clock.now + 30_000))).status).toBe(401)
})

test("a wrong code, a reused code and one two steps away are refused; the steps either side are taken", async () => {
  const { secret } = await withTotp()
  t.clock.now += 90_000
  const pending = await t.password("ann")
  const wrong = await code(pending, codeAt(secret, t.clock.now) === "000000" ? "111111" : "000000")
  expect(wrong.status).toBe(401)
  expect((await wrong.json()).error.code).toBe("second_factor_failed")
  const twoBefore = codeAt(secret, t.clock.now - 60_000)
  if (twoBefore !== codeAt(secret, t.clock.now)) expect((await code(pending, twoBefore)).status).toBe(401)
  const twoAfter = codeAt(secret, t.clock.now + 60_000)
  if (twoAfter !== codeAt(secret, t.clock.now)) expect((await code(pending, twoAfter)).status).toBe(401)
  // The step before is taken; that code again, at once or from another sign-in, is not.
  const before = codeAt(secret, t.clock.now - 30_000)
  expect((await code(pending, before)).status).toBe(200)
  const again = await t.password("ann")
  expect((await code(again, before)).status).toBe(401)
  // Nor is any code of a step before it (the window's older end), only a later one: the step after.
  expect((await code(again, codeAt(secret, t.clock.now + 30_000))).status).toBe(200)
  const third = await t.password("ann")
  expect((await code(third, codeAt(secret, t.clock.now))).status).toBe(401)
})

test("a recovery code works once, in any case and without dashes; then it is gone", async () => {
  const { codes } = await withTotp()
  expect(codes).toHaveLength(10)
  expect(new Set(codes).size).toBe(10)
  for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/)
  const first = await t.password("ann")
  expect((await code(first, codes[3]!.toUpperCase().replaceAll("-", ""))).status).toBe(200)
  const second = await t.password("ann")
  const reused = await code(second, codes[3]!)
  expect(reused.status).toBe(401)
  expect((await reused.json()).error.code).toBe("second_factor_failed")
  expect((await code(second, codes[4]!)).status).toBe(200)
  const root = await t.signIn("root")
  const { entries } = await (await t.call("GET", "/api/audit?limit=100", undefined, { cookie: root })).json()
  expect(
    entries
      .filter((e: any) => e.route === "/api/auth/login/code")
      .map((e: any) => [e.user, e.action, e.status])
      .reverse(),
  ).toEqual([
    ["ann", "mfa.recovery.used", 200],
    ["ann", "login.second_factor", 401],
    ["ann", "mfa.recovery.used", 200],
  ])
})

test("wrong codes count with wrong passwords: past five the user's address waits, and the password clears nothing", async () => {
  await withTotp()
  const pending = await t.password("ann")
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) statuses.push((await code(pending, "000000")).status)
  expect(statuses.filter((s) => s === 401)).toHaveLength(5)
  expect((await code(pending, "000000")).status).toBe(429)
  // The right password now is refused too: the wait is the user's from this address, whichever step failed.
  expect((await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })).status).toBe(429)
  t.clock.now += 1500
  const again = await t.password("ann")
  t.clock.now += 1500
  expect((await code(again, "000000")).status).toBe(401)
  expect((await code(again, "000000")).status).toBe(429)
})

test("without a pending sign-in, or after its 5 minutes, a code is 401 no_pending_sign_in", async () => {
  const { secret } = await withTotp()
  const none = await t.call("POST", "/api/auth/login/code", { code: "123456" })
  expect(none.status).toBe(401)
  expect((await none.json()).error.code).toBe("no_pending_sign_in")
  const pending = await t.password("ann")
  t.clock.now += 5 * 60_000 + 1000
  const late = await code(pending, codeAt(secret, t.clock.now))
  expect(late.status).toBe(401)
  expect((await late.json()).error.code).toBe("no_pending_sign_in")
  const forged = await code(`hm_pending=${"A".repeat(43)}`, codeAt(secret, t.clock.now))
  expect((await forged.json()).error.code).toBe("no_pending_sign_in")
})

test("no code, secret or recovery code reaches the audit log, the factors file or an answer other than its own", async () => {
  const { secret, codes } = await withTotp()
  const pending = await t.password("ann")
  await code(pending, codes[0]!)
  const secondPending = await t.password("ann")
  t.clock.now += 30_000
  const session = (await code(secondPending, codeAt(secret, t.clock.now))).headers.get("set-cookie")!.split(";")[0]!
  const audit = readdirSync(join(t.dataDir, "audit"))
    .map((f) => readFileSync(join(t.dataDir, "audit", f), "utf8"))
    .join("")
  const factors = readFileSync(join(t.dataDir, "auth", "factors.json"), "utf8")
  for (const text of [audit, factors]) {
    expect(text).not.toContain(secret)
    for (const c of codes) expect(text).not.toContain(c)
  }
  // The secret is in the secret store only, sealed with the service's key.
  const store = readFileSync(join(t.dataDir, "secrets", "totp.json"), "utf8")
  expect(store).not.toContain(secret)
  expect(JSON.parse(unseal(store))).toEqual({ ann: secret })
  const view = await t.call("GET", "/api/auth/factors", undefined, { cookie: session })
  expect(await view.json()).toEqual({
    user: "ann",
    totp: true,
    passkeys: [],
    recovery_codes: 9,
    required: false,
  })
})
