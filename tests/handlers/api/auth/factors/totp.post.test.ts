// Setting up an authenticator app: a secret with its QR code, on once a code of the app confirms it;
// the first factor brings ten recovery codes; the user's other sessions end; the secret lies in the
// secret store only. Who may: a local user's session, or a sign-in sent to enrol; not a token.
import { afterEach, expect, test } from "bun:test"
import { readFileSync, statSync } from "node:fs"
import { unseal } from "#lib/data/sealed.ts"
import { join } from "node:path"
import { codeAt } from "#lib/auth/totp.ts"
import { authApp, PASSWORD, type AuthTestApp } from "../../../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("a secret as text and QR code; a wrong code leaves it off; the right one turns it on with ten recovery codes", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const other = await t.signIn("ann")
  const begun = await t.call("POST", "/api/auth/factors/totp", undefined, { cookie })
  expect(begun.status).toBe(200)
  const { secret, uri, qr } = await begun.json()
  expect(uri).toBe(
    `otpauth://totp/Harbormaster:ann?issuer=Harbormaster&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
  )
  expect(qr).toStartWith("data:image/svg+xml;base64,")
  expect(Buffer.from(qr.split(",")[1], "base64").toString()).toContain("<svg")
  const right = codeAt(secret, t.clock.now)
  const wrong = await t.call(
    "POST",
    "/api/auth/factors/totp/confirm",
    { code: right === "000000" ? "111111" : "000000" },
    { cookie },
  )
  expect(wrong.status).toBe(400)
  expect((await wrong.json()).error.code).toBe("wrong_code")
  expect((await (await t.call("GET", "/api/auth/factors", undefined, { cookie })).json()).totp).toBe(false)
  const on = await t.call("POST", "/api/auth/factors/totp/confirm", { code: right }, { cookie })
  expect(on.status).toBe(200)
  const { recovery_codes } = await on.json()
  expect(recovery_codes).toHaveLength(10)
  expect(on.headers.get("set-cookie")).toBeNull()
  // This session stays, the other ends.
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: other })).status).toBe(401)
  expect(await (await t.call("GET", "/api/auth/factors", undefined, { cookie })).json()).toEqual({
    user: "ann",
    totp: true,
    passkeys: [],
    recovery_codes: 10,
    required: false,
  })
  const store = join(t.dataDir, "secrets", "totp.json")
  // Sealed with the service's secret key: the file alone does not hold the secret.
  expect(readFileSync(store, "utf8")).not.toContain(secret)
  expect(JSON.parse(unseal(readFileSync(store, "utf8")))).toEqual({ ann: secret })
  expect(statSync(store).mode & 0o777).toBe(0o600)
  expect(statSync(join(t.dataDir, "secrets")).mode & 0o777).toBe(0o700)
  expect(readFileSync(join(t.dataDir, "auth", "factors.json"), "utf8")).not.toContain(secret)
  // A second one while this one is on: 409; a confirmation with nothing begun: 409.
  expect((await t.call("POST", "/api/auth/factors/totp", undefined, { cookie })).status).toBe(409)
  const none = await t.call("POST", "/api/auth/factors/totp/confirm", { code: right }, { cookie })
  expect((await none.json()).error.code).toBe("no_enrolment")
})

test("an API token, a single sign-on's session and nobody set up no factor", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const { token } = await t.token(await t.signIn("ann"))
  const byToken = await t.call("POST", "/api/auth/factors/totp", undefined, { authorization: `Bearer ${token}` })
  expect(byToken.status).toBe(403)
  expect((await byToken.json()).error.code).toBe("not_a_session")
  const { cookie } = await t.ctx.auth.startSession(
    { user: "sso", role: "admin", source: "oidc" },
    new Request("http://127.0.0.1/"),
  )
  const bySso = await t.call("POST", "/api/auth/factors/totp", undefined, { cookie: cookie.split(";")[0]! })
  expect(bySso.status).toBe(403)
  expect((await t.call("POST", "/api/auth/factors/totp")).status).toBe(401)
})

test("removing it ends the other sessions; recovery codes made again replace the old ones", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const { codes } = await t.enrolTotp(cookie)
  const fresh = await (await t.call("POST", "/api/auth/factors/recovery-codes", undefined, { cookie })).json()
  expect(fresh.recovery_codes).toHaveLength(10)
  expect(fresh.recovery_codes.filter((c: string) => codes.includes(c))).toEqual([])
  const pending = await t.password("ann")
  expect((await t.call("POST", "/api/auth/login/code", { code: codes[0] }, { cookie: pending })).status).toBe(401)
  const session = await t.call("POST", "/api/auth/login/code", { code: fresh.recovery_codes[0] }, { cookie: pending })
  expect(session.status).toBe(200)
  const other = session.headers.get("set-cookie")!.split(";")[0]!
  // Removing it asks for the password (or a current code).
  const unproved = await t.call("DELETE", "/api/auth/factors/totp", {}, { cookie })
  expect([unproved.status, (await unproved.json()).error.code]).toEqual([400, "proof_required"])
  const wrong = await t.call("DELETE", "/api/auth/factors/totp", { password: "not the password" }, { cookie })
  expect([wrong.status, (await wrong.json()).error.code]).toEqual([403, "wrong_password"])
  const removed = await t.call("DELETE", "/api/auth/factors/totp", { password: PASSWORD }, { cookie })
  expect(removed.status).toBe(200)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: other })).status).toBe(401)
  // With no factor left the password alone signs in, and recovery codes are gone with it.
  await t.signIn("ann")
  expect((await (await t.call("GET", "/api/auth/factors", undefined, { cookie })).json()).recovery_codes).toBe(0)
  expect((await t.call("POST", "/api/auth/factors/recovery-codes", undefined, { cookie })).status).toBe(409)
  expect((await t.call("DELETE", "/api/auth/factors/totp", { password: PASSWORD }, { cookie })).status).toBe(404)
})
