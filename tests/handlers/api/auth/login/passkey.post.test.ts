// Signing in with a passkey, as the second step after the password or instead of it, with real
// answers of a software authenticator: each challenge works once, for its own user and step, for 5
// minutes; the answer must come from the relying party's origin and RP id; a counter that went
// backwards is refused and audited; failures count with the password's.
import { afterEach, expect, test } from "bun:test"
import { authApp, PASSWORD, type AuthTestApp } from "../../../../support/auth.ts"
import { SoftAuthenticator, type Bend } from "../../../../support/webauthn.ts"

let t: AuthTestApp
afterEach(() => t.close())

async function setup(env: Record<string, string> = {}) {
  t = await authApp(env)
  await t.addUser("ann", "viewer")
  await t.addUser("bob", "viewer")
  await t.addUser("root", "admin")
  const { authenticator } = await t.enrolPasskey(await t.signIn("ann"))
  return authenticator
}

const options = async (cookie?: string) => {
  const res = await t.call("POST", "/api/auth/login/passkey/options", undefined, cookie ? { cookie } : {})
  expect(res.status).toBe(200)
  return (await res.json()) as {
    challenge: string
    rpId: string
    allowCredentials?: { id: string }[]
    userVerification: string
  }
}

const signIn = (credential: unknown, cookie?: string) =>
  t.call("POST", "/api/auth/login/passkey", { credential }, cookie ? { cookie } : {})

const errorOf = async (res: Response) => [res.status, ((await res.json()) as { error: { code: string } }).error.code]

/** A sign-in with `authenticator` as the second step after ann's password, its answer bent by `bend`. */
async function secondStep(authenticator: SoftAuthenticator, bend: Bend = {}) {
  const pending = await t.password("ann")
  const res = await signIn(authenticator.assert(await options(pending), bend), pending)
  return { pending, res }
}

async function audit() {
  const root = await t.signIn("root")
  const { entries } = await (await t.call("GET", "/api/audit?limit=200", undefined, { cookie: root })).json()
  return (entries as { route: string; action?: string; user: string; status: number }[])
    .filter((e) => !e.route.endsWith("/options") && /^\/api\/auth\/(login\/passkey|factors\/passkeys)/.test(e.route))
    .map((e) => [e.user, e.action, e.status])
    .reverse()
}

test("after the password, the passkey is the second step: the user's passkeys are offered, the session begins", async () => {
  const authenticator = await setup()
  const res = await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })
  expect(res.status).toBe(202)
  expect(await res.json()).toEqual({ next: "second_factor", methods: ["passkey", "recovery_code"] })
  const pending = res.headers.get("set-cookie")!.split(";")[0]!
  const offered = await options(pending)
  expect(offered.allowCredentials?.map((c) => c.id)).toEqual([authenticator.id])
  const done = await signIn(authenticator.assert(offered), pending)
  expect(done.status).toBe(200)
  expect(await done.json()).toMatchObject({ user: "ann", role: "viewer" })
  const session = done.headers.get("set-cookie")!.split(";")[0]!
  expect((await t.call("GET", "/api/containers", undefined, { cookie: session })).status).toBe(200)
  const factors = await (await t.call("GET", "/api/auth/factors", undefined, { cookie: session })).json()
  expect(factors.passkeys).toEqual([
    { id: authenticator.id, name: "laptop", created: t.clock.now, last_used: t.clock.now },
  ])
  // The pending sign-in is spent: what follows is a sign-in without a password, and needs a verified user.
  expect((await t.call("GET", "/api/auth/me", undefined, { cookie: pending })).status).toBe(401)
  expect((await options(pending)).allowCredentials ?? []).toEqual([])
  const unverified = authenticator.assert(await options(pending), { verified: false })
  expect(await errorOf(await signIn(unverified, pending))).toEqual([401, "passkey_refused"])
})

test("instead of the password: a discoverable passkey that verified its user signs in; one unverified does not", async () => {
  const authenticator = await setup()
  const offered = await options()
  expect(offered.allowCredentials ?? []).toEqual([])
  expect(offered.userVerification).toBe("required")
  expect(await errorOf(await signIn(authenticator.assert(offered, { verified: false })))).toEqual([
    401,
    "passkey_refused",
  ])
  const done = await signIn(authenticator.assert(await options()))
  expect(done.status).toBe(200)
  expect(await done.json()).toMatchObject({ user: "ann" })
  expect(done.headers.get("set-cookie")).toStartWith("hm_session=")
  expect(await audit()).toEqual([
    ["ann", "mfa.passkey.enrol", 201],
    ["ann", "login.passkey", 401],
    ["ann", "login.passkey", 200],
  ])
})

test("a replayed answer is refused: its challenge was taken by the first use", async () => {
  const authenticator = await setup()
  const answer = authenticator.assert(await options())
  expect((await signIn(answer)).status).toBe(200)
  expect(await errorOf(await signIn(answer))).toEqual([401, "challenge_unknown"])
  // Replayed into a sign-in with a password, whose own challenge it never signed.
  const pending = await t.password("ann")
  await options(pending)
  expect(await errorOf(await signIn(answer, pending))).toEqual([401, "challenge_unknown"])
})

test("a counter that went backwards is refused and audited; the kept one stays", async () => {
  const authenticator = await setup()
  expect((await signIn(authenticator.assert(await options(), { counter: 7 }))).status).toBe(200)
  expect(await errorOf(await signIn(authenticator.assert(await options(), { counter: 5 })))).toEqual([
    401,
    "passkey_counter",
  ])
  expect(await errorOf(await signIn(authenticator.assert(await options(), { counter: 7 })))).toEqual([
    401,
    "passkey_counter",
  ])
  expect((await signIn(authenticator.assert(await options(), { counter: 8 }))).status).toBe(200)
  expect((await audit()).slice(1)).toEqual([
    ["ann", "login.passkey", 200],
    ["ann", "mfa.passkey.counter", 401],
    ["ann", "mfa.passkey.counter", 401],
    ["ann", "login.passkey", 200],
  ])
})

test("the wrong origin or RP id is refused, as a second step and without a password", async () => {
  const authenticator = await setup()
  expect(await errorOf((await secondStep(authenticator, { origin: "http://127.0.0.1:8081" })).res)).toEqual([
    401,
    "wrong_origin",
  ])
  expect(
    await errorOf(await signIn(authenticator.assert(await options(), { origin: "https://evil.example" }))),
  ).toEqual([401, "wrong_origin"])
  const rp = (await secondStep(authenticator, { rpId: "evil.example" })).res
  expect(rp.status).toBe(401)
  const body = await rp.json()
  expect(body.error.code).toBe("passkey_refused")
  expect(body.error.message).toContain("RP ID")
  expect(await errorOf(await signIn(authenticator.assert(await options(), { rpId: "localhost" })))).toEqual([
    401,
    "passkey_refused",
  ])
})

test("an unknown or expired challenge is refused", async () => {
  const authenticator = await setup()
  const unknown = "A".repeat(43)
  expect(await errorOf(await signIn(authenticator.assert({ challenge: unknown })))).toEqual([401, "challenge_unknown"])
  const given = await options()
  t.clock.now += 5 * 60_000 + 1000
  expect(await errorOf(await signIn(authenticator.assert(given)))).toEqual([401, "challenge_unknown"])
  const pending = await t.password("ann")
  const late = await options(pending)
  t.clock.now += 4 * 60_000
  // The pending sign-in still waits; the challenge is 4 minutes old and still good.
  expect((await signIn(authenticator.assert(late), pending)).status).toBe(200)
})

test("a challenge given to another user or step is refused, and so is another user's passkey", async () => {
  const annKey = await setup()
  const { authenticator: bobKey } = await t.enrolPasskey(await t.signIn("bob"), "bob's")
  // bob's pending sign-in signs ann's challenge.
  const annPending = await t.password("ann")
  const annChallenge = await options(annPending)
  const bobPending = await t.password("bob")
  await options(bobPending)
  expect(await errorOf(await signIn(bobKey.assert(annChallenge), bobPending))).toEqual([401, "wrong_challenge"])
  // A challenge for a sign-in without a password, used as ann's second step.
  expect(await errorOf(await signIn(annKey.assert(await options()), annPending))).toEqual([401, "wrong_challenge"])
  // bob's passkey as ann's second step, on ann's own challenge.
  expect(await errorOf(await signIn(bobKey.assert(await options(annPending)), annPending))).toEqual([
    401,
    "passkey_unknown",
  ])
  // A passkey never registered, without a password.
  const stranger = new SoftAuthenticator("http://127.0.0.1:8080", "127.0.0.1")
  expect(await errorOf(await signIn(stranger.assert(await options())))).toEqual([401, "passkey_unknown"])
})

test("failures count with the password's: past five the user's address waits", async () => {
  const authenticator = await setup()
  const pending = await t.password("ann")
  const statuses: number[] = []
  for (let i = 0; i < 5; i++)
    statuses.push((await signIn(authenticator.assert(await options(pending), { origin: "https://x" }), pending)).status)
  expect(statuses).toEqual([401, 401, 401, 401, 401])
  const late = await signIn(authenticator.assert(await options(pending)), pending)
  expect(late.status).toBe(429)
  expect((await t.call("POST", "/api/auth/login", { user: "ann", password: PASSWORD })).status).toBe(429)
})

test("the relying party is SVC_PUBLIC_URL's host and origin; plain HTTP elsewhere than this host is refused", async () => {
  t = await authApp({ SVC_PUBLIC_URL: "https://harbor.example/" })
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const begun = await t.call("POST", "/api/auth/factors/passkeys/options", undefined, { cookie })
  const creation = await begun.json()
  expect(creation.rp).toEqual({ name: "Harbormaster", id: "harbor.example" })
  const authenticator = new SoftAuthenticator("https://harbor.example", "harbor.example")
  const added = await t.call(
    "POST",
    "/api/auth/factors/passkeys",
    { name: "laptop", credential: authenticator.register(creation) },
    { cookie },
  )
  expect(added.status).toBe(201)
  const offered = await options()
  expect(offered).toMatchObject({ rpId: "harbor.example" })
  // The service's own address is not the relying party's.
  expect(await errorOf(await signIn(authenticator.assert(offered, { origin: "http://127.0.0.1:8080" })))).toEqual([
    401,
    "wrong_origin",
  ])
  expect((await signIn(authenticator.assert(await options()))).status).toBe(200)
  t.close()

  for (const url of ["http://harbor.example", "http://192.168.1.5:8080"]) {
    t = await authApp({ SVC_PUBLIC_URL: url })
    await t.addUser("ann", "viewer")
    for (const [path, cookie] of [
      ["/api/auth/login/passkey/options", undefined],
      ["/api/auth/factors/passkeys/options", await t.signIn("ann")],
    ] as const) {
      const res = await t.call("POST", path, undefined, cookie ? { cookie } : {})
      expect(res.status).toBe(403)
      const { error } = await res.json()
      expect(error.code).toBe("passkeys_need_https")
      expect(error.message).toContain("SVC_PUBLIC_URL")
    }
    t.close()
  }
  t = await authApp({ SVC_PUBLIC_URL: "http://localhost:8080" })
  expect((await options()).rpId).toBe("localhost")
})
