// Registering passkeys (several per user, each with a name), listing and removing one (with the
// password or a current code), as a first factor under SVC_AUTH_MFA and as "the last factor stays";
// kept sealed in the secret store, audited, never a secret in an answer or a log.
import { afterEach, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { unseal } from "#lib/data/sealed.ts"
import { codeAt } from "#lib/auth/totp.ts"
import { authApp, PASSWORD, type AuthTestApp } from "../../../../../support/auth.ts"
import { SoftAuthenticator } from "../../../../../support/webauthn.ts"

let t: AuthTestApp
afterEach(() => t.close())

const errorOf = async (res: Response) => [res.status, ((await res.json()) as { error: { code: string } }).error.code]

async function begin(cookie: string) {
  const res = await t.call("POST", "/api/auth/factors/passkeys/options", undefined, { cookie })
  expect(res.status).toBe(200)
  return res.json()
}

const add = (cookie: string, name: string, credential: unknown) =>
  t.call("POST", "/api/auth/factors/passkeys", { name, credential }, { cookie })

const remove = (cookie: string, id: string, proof: Record<string, string>) =>
  t.call("DELETE", `/api/auth/factors/passkeys/${id}`, proof, { cookie })

const factors = async (cookie: string) =>
  (await (await t.call("GET", "/api/auth/factors", undefined, { cookie })).json()) as {
    passkeys: { id: string; name: string }[]
    recovery_codes: number
  }

test("several passkeys with names: the first brings recovery codes and ends the other sessions; each is listed", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const other = await t.signIn("ann")
  const options = await begin(cookie)
  expect(options).toMatchObject({
    rp: { name: "Harbormaster", id: "127.0.0.1" },
    user: { name: "ann" },
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    excludeCredentials: [],
  })
  const laptop = new SoftAuthenticator("http://127.0.0.1:8080", "127.0.0.1")
  const first = await add(cookie, "laptop", laptop.register(options))
  expect(first.status).toBe(201)
  const body = await first.json()
  expect(body.passkey).toEqual({ id: laptop.id, name: "laptop", created: t.clock.now })
  expect(body.recovery_codes).toHaveLength(10)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: other })).status).toBe(401)
  // The second: no new codes; the first is excluded; its name must differ; a passkey registers once.
  const again = await begin(cookie)
  expect(again.excludeCredentials).toEqual([{ id: laptop.id, type: "public-key", transports: ["internal"] }])
  expect(again.user.id).toBe(options.user.id)
  const phone = new SoftAuthenticator("http://127.0.0.1:8080", "127.0.0.1")
  expect(await errorOf(await add(cookie, "laptop", phone.register(again)))).toEqual([409, "passkey_name_taken"])
  expect(await errorOf(await add(cookie, "laptop 2", laptop.register(await begin(cookie))))).toEqual([
    409,
    "passkey_exists",
  ])
  const second = await add(cookie, "phone", phone.register(await begin(cookie)))
  expect(second.status).toBe(201)
  expect((await second.json()).recovery_codes).toBeUndefined()
  expect((await factors(cookie)).passkeys.map((k) => [k.id, k.name])).toEqual([
    [laptop.id, "laptop"],
    [phone.id, "phone"],
  ])
})

test("a registration's challenge is its user's, used once, for 5 minutes, on the relying party's origin and RP id", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  await t.addUser("bob", "viewer")
  const ann = await t.signIn("ann")
  const bob = await t.signIn("bob")
  const key = () => new SoftAuthenticator("http://127.0.0.1:8080", "127.0.0.1")
  expect(await errorOf(await add(bob, "x", key().register(await begin(ann))))).toEqual([400, "wrong_challenge"])
  const used = await begin(ann)
  expect((await add(ann, "one", key().register(used))).status).toBe(201)
  expect(await errorOf(await add(ann, "two", key().register(used)))).toEqual([400, "challenge_unknown"])
  const old = await begin(ann)
  t.clock.now += 5 * 60_000 + 1000
  expect(await errorOf(await add(ann, "two", key().register(old)))).toEqual([400, "challenge_unknown"])
  const origin = key().register(await begin(ann), { origin: "https://evil.example" })
  expect(await errorOf(await add(ann, "two", origin))).toEqual([400, "wrong_origin"])
  const rp = await add(ann, "two", key().register(await begin(ann), { rpId: "evil.example" }))
  expect(rp.status).toBe(400)
  expect((await rp.json()).error).toMatchObject({ code: "passkey_refused", message: expect.stringContaining("RP ID") })
  expect((await factors(ann)).passkeys.map((k) => k.name)).toEqual(["one"])
})

test("removing one asks for the password or a current code; the last factor stays under SVC_AUTH_MFA; audited", async () => {
  t = await authApp({ SVC_AUTH_MFA: "all" })
  await t.addUser("ann", "viewer")
  await t.addUser("root", "admin")
  const pending = await t.password("ann")
  // A passkey is a factor: a user sent to enrol may register one, and is signed in by it.
  const { authenticator: laptop, res } = await t.enrolPasskey(pending, "laptop")
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!
  expect(cookie).toStartWith("hm_session=")
  expect((await t.call("GET", "/api/containers", undefined, { cookie })).status).toBe(200)
  expect(await errorOf(await remove(cookie, laptop.id, { password: PASSWORD }))).toEqual([409, "factor_required"])
  const { secret } = await t.enrolTotp(cookie)
  expect(await errorOf(await remove(cookie, laptop.id, {}))).toEqual([400, "proof_required"])
  expect(await errorOf(await remove(cookie, laptop.id, { password: "wrong password" }))).toEqual([
    403,
    "wrong_password",
  ])
  expect(await errorOf(await remove(cookie, laptop.id, { code: "000000" }))).toEqual([403, "wrong_code"])
  expect(await errorOf(await remove(cookie, "nope", { password: PASSWORD }))).toEqual([404, "passkey_not_found"])
  t.clock.now += 30_000
  const removed = await remove(cookie, laptop.id, { code: codeAt(secret, t.clock.now) })
  expect(removed.status).toBe(200)
  expect(await removed.json()).toEqual({ removed: laptop.id })
  expect((await factors(cookie)).passkeys).toEqual([])
  // The authenticator app is now the last factor: it stays, whatever the proof.
  expect(await errorOf(await t.call("DELETE", "/api/auth/factors/totp", { password: PASSWORD }, { cookie }))).toEqual([
    409,
    "factor_required",
  ])
  t.ctx.auth.config.mfa = "off"
  const root = await t.signIn("root")
  const { entries } = await (await t.call("GET", "/api/audit?limit=200", undefined, { cookie: root })).json()
  expect(
    (entries as { route: string; action?: string; user: string; status: number }[])
      .filter((e) => e.route.startsWith("/api/auth/factors/passkeys") && !e.route.endsWith("/options"))
      .map((e) => [e.action, e.status])
      .reverse(),
  ).toEqual([
    ["mfa.passkey.enrol", 201],
    ["mfa.passkey.remove", 409],
    ["mfa.passkey.remove", 400],
    ["mfa.passkey.remove", 403],
    ["mfa.passkey.remove", 403],
    ["mfa.passkey.remove", 404],
    ["mfa.passkey.remove", 200],
  ])
})

test("with the last passkey removed the recovery codes go; an admin's reset removes passkeys; the store is sealed", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  await t.addUser("root", "admin")
  const cookie = await t.signIn("ann")
  const { authenticator } = await t.enrolPasskey(cookie)
  expect((await factors(cookie)).recovery_codes).toBe(10)
  const store = readFileSync(join(t.dataDir, "secrets", "passkeys.json"), "utf8")
  expect(store).not.toContain(authenticator.id)
  expect(store).not.toContain("laptop")
  const kept = JSON.parse(unseal(store)).ann.keys[0]
  expect(kept).toMatchObject({ id: authenticator.id, name: "laptop", counter: 0 })
  expect((await remove(cookie, authenticator.id, { password: PASSWORD })).status).toBe(200)
  expect((await factors(cookie)).recovery_codes).toBe(0)
  // The password alone signs in again.
  await t.signIn("ann")
  await t.enrolPasskey(await t.signIn("ann"), "again")
  expect((await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })).status).toBe(202)
  const root = await t.signIn("root")
  expect((await t.call("DELETE", "/api/users/ann/factors", undefined, { cookie: root })).status).toBe(200)
  expect(JSON.parse(unseal(readFileSync(join(t.dataDir, "secrets", "passkeys.json"), "utf8")))).toEqual({})
  await t.signIn("ann")
  const audit = readdirSync(join(t.dataDir, "audit"))
    .map((f) => readFileSync(join(t.dataDir, "audit", f), "utf8"))
    .join("")
  expect(audit).not.toContain(kept.public_key)
  expect(audit).not.toContain(PASSWORD)
})
