// Single sign-on end to end: the real service with SVC_AUTH=oidc against a real identity provider on
// loopback (oidc-provider). Groups map to each role through SVC_AUTH_ROLE_MAP, a user no rule maps is
// refused (and gets no session), sign-out ends the session and sends the browser to the provider's
// end-session endpoint.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { authorize, startProvider, type IdentityProvider } from "../support/oidc.ts"
import { engineHost } from "../support/engine.ts"
import { freePort, startService, type Service } from "../support/service.ts"

let provider: IdentityProvider
let svc: Service

beforeAll(async () => {
  const port = await freePort()
  provider = await startProvider({
    accounts: { ada: ["hm-admins"], otto: ["devs", "hm-ops"], vic: ["hm-viewers"], nora: ["marketing"] },
    redirectUris: [`http://127.0.0.1:${port}/api/auth/oidc/callback`],
    postLogoutRedirectUris: [`http://127.0.0.1:${port}/`],
  })
  svc = await startService(
    {
      DOCKER_HOST: engineHost(),
      SVC_AUTH: "oidc",
      SVC_AUTH_OIDC_ISSUER: provider.issuer,
      SVC_AUTH_OIDC_CLIENT_ID: provider.clientId,
      SVC_AUTH_OIDC_CLIENT_SECRET: provider.clientSecret,
      SVC_AUTH_OIDC_SCOPES: "openid profile groups",
      SVC_AUTH_ROLE_MAP: "hm-admins=admin,hm-ops=operator,hm-viewers=viewer",
    },
    { port },
  )
}, 60_000)

afterAll(async () => {
  await svc?.stop()
  await provider?.stop()
})

const cookieOf = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(";")[0]

/** Signs `account` in through the provider; the callback's answer. */
async function signIn(account: string): Promise<Response> {
  const login = await fetch(`${svc.url}/api/auth/oidc/login`, { redirect: "manual" })
  expect(login.status).toBe(302)
  const callback = await authorize(provider, login.headers.get("location")!, account)
  return fetch(callback, { redirect: "manual", headers: { cookie: cookieOf(login, "hm_oidc")! } })
}

const me = (session: string) => fetch(`${svc.url}/api/auth/me`, { headers: { cookie: session } })

describe("OIDC sign-in through the service", () => {
  test.each([
    ["ada", "admin"],
    ["otto", "operator"],
    ["vic", "viewer"],
  ])("%s signs in with the role their groups map to (%s)", async (account, role) => {
    const res = await signIn(account)
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe("/")
    const session = cookieOf(res, "hm_session")!
    expect(session).toBeTruthy()
    expect(await (await me(session)).json()).toMatchObject({ user: account, role, source: "oidc" })
  })

  test("a user in no mapped group is refused, gets no session and is not made anything", async () => {
    const res = await signIn("nora")
    expect(res.status).toBe(403)
    expect((await res.json()).error.code).toBe("no_role")
    expect(cookieOf(res, "hm_session")).toBeUndefined()
  })

  test("roles hold: a viewer reads and may not prune", async () => {
    const session = cookieOf(await signIn("vic"), "hm_session")!
    expect((await fetch(`${svc.url}/api/volumes`, { headers: { cookie: session } })).status).toBe(200)
    const prune = await fetch(`${svc.url}/api/prune/images`, {
      method: "POST",
      headers: { cookie: session, origin: svc.url },
    })
    expect(prune.status).toBe(403)
  })

  test("a callback with a wrong state is refused without a session", async () => {
    const login = await fetch(`${svc.url}/api/auth/oidc/login`, { redirect: "manual" })
    const callback = new URL(await authorize(provider, login.headers.get("location")!, "ada"))
    callback.searchParams.set("state", "forged")
    const res = await fetch(callback, { redirect: "manual", headers: { cookie: cookieOf(login, "hm_oidc")! } })
    expect(res.status).toBe(401)
    expect(cookieOf(res, "hm_session")).toBeUndefined()
  })

  test("sign-out ends the session and sends the browser to the provider's end-session endpoint", async () => {
    const session = cookieOf(await signIn("ada"), "hm_session")!
    const res = await fetch(`${svc.url}/api/auth/oidc/logout`, {
      method: "POST",
      headers: { cookie: session, origin: svc.url },
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.signed_out).toBe(true)
    const end = new URL(body.redirect)
    expect(`${end.origin}${end.pathname}`).toBe(`${provider.issuer}/session/end`)
    expect(end.searchParams.get("post_logout_redirect_uri")).toBe(`${svc.url}/`)
    expect((await me(session)).status).toBe(401)
    // The provider's own page answers the address (its sign-out confirmation).
    expect((await fetch(end, { redirect: "manual" })).status).toBe(200)
  })
})
