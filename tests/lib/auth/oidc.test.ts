// Single sign-on against a real identity provider on loopback (oidc-provider): the code flow with
// PKCE, and each check that refuses a sign-in: state, a replayed callback, the ID token's audience
// and issuer (openid-client's checks), and the end-session address.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Oidc, oidcSettings } from "#lib/auth/oidc.ts"
import { DomainError } from "#lib/errors/errors.ts"
import { STATUS_OF } from "#lib/http/http-error.ts"
import { authorize, startProvider, type IdentityProvider } from "../../support/oidc.ts"

const SERVICE = "http://127.0.0.1:9"
let provider: IdentityProvider
let oidc: Oidc

beforeAll(async () => {
  provider = await startProvider({
    accounts: { alice: ["hm-admins", "staff"], bob: [] },
    redirectUris: [`${SERVICE}/api/auth/oidc/callback`],
    postLogoutRedirectUris: [`${SERVICE}/`],
  })
  oidc = new Oidc({
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    redirectUrl: undefined,
    scopes: "openid profile groups",
    roleClaim: "groups",
  })
})
afterAll(() => provider.stop())

/** The callback request the browser makes after signing `account` in, with the sign-in's cookie. */
async function signedIn(account: string): Promise<{ callback: string; cookie: string }> {
  const { location, cookie } = await oidc.begin(new Request(`${SERVICE}/api/auth/oidc/login`))
  return { callback: await authorize(provider, location, account), cookie: cookie.split(";")[0]! }
}

const finish = (callback: string, cookie: string) => oidc.finish(new Request(callback, { headers: { cookie } }))

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  const err = await promise.then(
    () => undefined,
    (e) => e,
  )
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${err}`)
  return { status: STATUS_OF[err.kind], code: err.code, message: err.message }
}

describe("OIDC sign-in", () => {
  test("the code flow with PKCE, state and nonce: the user and their groups", async () => {
    const { location, cookie } = await oidc.begin(new Request(`${SERVICE}/api/auth/oidc/login`))
    const url = new URL(location)
    expect(url.origin).toBe(provider.issuer)
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("code_challenge")).toBeTruthy()
    expect(url.searchParams.get("state")).toBeTruthy()
    expect(url.searchParams.get("nonce")).toBeTruthy()
    expect(url.searchParams.get("redirect_uri")).toBe(`${SERVICE}/api/auth/oidc/callback`)
    // The cookie carries a key, none of the flow's secrets.
    expect(cookie).toMatch(/^hm_oidc=[^;]+; Path=\/api\/auth\/oidc; HttpOnly; SameSite=Lax/)
    for (const p of ["state", "nonce", "code_challenge"]) expect(cookie).not.toContain(url.searchParams.get(p)!)

    const callback = await authorize(provider, location, "alice")
    expect(callback.startsWith(`${SERVICE}/api/auth/oidc/callback?`)).toBe(true)
    const { identity, cookie: cleared } = await finish(callback, cookie.split(";")[0]!)
    expect(identity).toEqual({ user: "alice", groups: ["hm-admins", "staff"] })
    expect(cleared).toContain("Max-Age=0")
  })

  test("a user without groups signs in with none", async () => {
    const { callback, cookie } = await signedIn("bob")
    expect((await finish(callback, cookie)).identity).toEqual({ user: "bob", groups: [] })
  })

  test("a wrong state is refused", async () => {
    const { callback, cookie } = await signedIn("alice")
    const forged = new URL(callback)
    forged.searchParams.set("state", "not-the-state")
    const err = await refusal(finish(forged.href, cookie))
    expect([err.status, err.code]).toEqual([401, "oidc_sign_in_failed"])
    expect(err.message).toContain("state")
  })

  test("a callback replayed, or without the sign-in's cookie, is refused", async () => {
    const { callback, cookie } = await signedIn("alice")
    expect((await refusal(finish(callback, "hm_oidc=someone-elses"))).code).toBe("oidc_no_sign_in")
    await finish(callback, cookie)
    expect((await refusal(finish(callback, cookie))).code).toBe("oidc_no_sign_in")
  })

  test("a code redeemed once is refused by the provider a second time, under a new sign-in's state", async () => {
    const first = await signedIn("alice")
    await finish(first.callback, first.cookie)
    const second = await oidc.begin(new Request(`${SERVICE}/api/auth/oidc/login`))
    const replay = new URL(first.callback)
    replay.searchParams.set("state", new URL(second.location).searchParams.get("state")!)
    const err = await refusal(finish(replay.href, second.cookie.split(";")[0]!))
    expect([err.status, err.code]).toEqual([401, "oidc_sign_in_failed"])
    expect(err.message).toContain("invalid_grant")
  })

  test.each([
    ["audience", { aud: "another-client" }, "aud"],
    ["issuer", { iss: "http://127.0.0.1:1" }, "iss"],
    ["expiry", { exp: Math.floor(Date.now() / 1000) - 3600 }, "exp"],
    ["nonce", { nonce: "another-nonce" }, "nonce"],
  ])("an ID token with a wrong %s is refused", async (_what, claims, claim) => {
    const { callback, cookie } = await signedIn("alice")
    provider.tamper((c) => ({ ...c, ...claims }))
    const err = await refusal(finish(callback, cookie))
    expect([err.status, err.code]).toEqual([401, "oidc_sign_in_failed"])
    expect(err.message).toContain(claim)
  })

  test("sign-out's address is the provider's end-session endpoint, coming back to the service", async () => {
    const url = new URL((await oidc.endSessionUrl(new Request(`${SERVICE}/api/auth/oidc/logout`, { method: "POST" })))!)
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.issuer}/session/end`)
    expect(url.searchParams.get("client_id")).toBe(provider.clientId)
    expect(url.searchParams.get("post_logout_redirect_uri")).toBe(`${SERVICE}/`)
  })

  test("a provider that cannot be reached is a 502, and is asked again next time", async () => {
    const gone = new Oidc({
      issuer: "http://127.0.0.1:9",
      clientId: "x",
      clientSecret: undefined,
      redirectUrl: undefined,
      scopes: "openid",
      roleClaim: "groups",
    })
    const err = await refusal(gone.begin(new Request(`${SERVICE}/api/auth/oidc/login`)))
    expect([err.status, err.code]).toEqual([502, "oidc_unavailable"])
    expect((await refusal(gone.begin(new Request(`${SERVICE}/api/auth/oidc/login`)))).code).toBe("oidc_unavailable")
  })
})

describe("SVC_AUTH_OIDC_* settings", () => {
  const base = { SVC_AUTH_OIDC_ISSUER: "https://id.example.com/realms/ops", SVC_AUTH_OIDC_CLIENT_ID: "harbormaster" }

  test("defaults: the request's origin for the callback, the basic scopes, the groups claim", () => {
    expect(oidcSettings(base)).toEqual({
      issuer: base.SVC_AUTH_OIDC_ISSUER,
      clientId: "harbormaster",
      clientSecret: undefined,
      redirectUrl: undefined,
      scopes: "openid profile email",
      roleClaim: "groups",
    })
  })

  test("every setting read", () => {
    const env = {
      ...base,
      SVC_AUTH_OIDC_CLIENT_SECRET: "s",
      SVC_AUTH_OIDC_REDIRECT_URL: "https://hm.example.com/api/auth/oidc/callback",
      SVC_AUTH_OIDC_SCOPES: "openid, groups",
      SVC_AUTH_OIDC_ROLE_CLAIM: "roles",
    }
    expect(oidcSettings(env)).toMatchObject({
      clientSecret: "s",
      redirectUrl: env.SVC_AUTH_OIDC_REDIRECT_URL,
      scopes: "openid groups",
      roleClaim: "roles",
    })
  })

  test.each([
    [{ SVC_AUTH_OIDC_ISSUER: base.SVC_AUTH_OIDC_ISSUER }, "SVC_AUTH_OIDC_CLIENT_ID"],
    [{ ...base, SVC_AUTH_OIDC_ISSUER: "id.example.com" }, "absolute URL"],
    [{ ...base, SVC_AUTH_OIDC_ISSUER: "http://id.example.com" }, "https://"],
    [{ ...base, SVC_AUTH_OIDC_REDIRECT_URL: "http://hm.example.com/cb" }, "SVC_AUTH_OIDC_REDIRECT_URL"],
    [{ ...base, SVC_AUTH_OIDC_SCOPES: "profile groups" }, "openid"],
  ])("refused: %o", (env, message) => {
    expect(() => oidcSettings(env)).toThrow(message)
  })

  test("plain http is allowed to a provider on this host", () => {
    expect(oidcSettings({ ...base, SVC_AUTH_OIDC_ISSUER: "http://127.0.0.1:9000" }).issuer).toBe(
      "http://127.0.0.1:9000",
    )
  })
})
