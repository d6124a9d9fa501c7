import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { authApp, type AuthTestApp } from "../../../../support/auth.ts"
import { authorize, startProvider, type IdentityProvider } from "../../../../support/oidc.ts"

let provider: IdentityProvider
let t: AuthTestApp
beforeAll(async () => {
  provider = await startProvider({
    accounts: { ada: ["admins"] },
    redirectUris: ["http://127.0.0.1:8080/api/auth/oidc/callback"],
    postLogoutRedirectUris: ["http://127.0.0.1:8080/"],
  })
})
afterAll(() => provider.stop())
afterEach(() => t.close())

test("ends a single sign-on's session and answers the provider's end-session address", async () => {
  t = await authApp({
    SVC_AUTH: "local,oidc",
    SVC_AUTH_OIDC_ISSUER: provider.issuer,
    SVC_AUTH_OIDC_CLIENT_ID: provider.clientId,
    SVC_AUTH_OIDC_CLIENT_SECRET: provider.clientSecret,
    SVC_AUTH_OIDC_SCOPES: "openid groups",
    SVC_AUTH_ROLE_MAP: "admins=admin",
  })
  const login = await t.call("GET", "/api/auth/oidc/login")
  const back = new URL(await authorize(provider, login.headers.get("location")!, "ada"))
  const signedIn = await t.call("GET", `${back.pathname}${back.search}`, undefined, {
    cookie: login.headers.get("set-cookie")!.split(";")[0]!,
  })
  const cookie = signedIn.headers
    .getSetCookie()
    .find((c) => c.startsWith("hm_session="))!
    .split(";")[0]!

  const res = await t.call("POST", "/api/auth/oidc/logout", undefined, { cookie })
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body.signed_out).toBe(true)
  const end = new URL(body.redirect)
  expect(`${end.origin}${end.pathname}`).toBe(`${provider.issuer}/session/end`)
  expect(end.searchParams.get("client_id")).toBe(provider.clientId)
  expect(end.searchParams.get("post_logout_redirect_uri")).toBe("http://127.0.0.1:8080/")
  expect(res.headers.get("set-cookie")).toStartWith("hm_session=; Path=/;")
  expect((await t.call("GET", "/api/auth/me", undefined, { cookie })).status).toBe(401)
})

test("a local user's session ends without a provider to visit", async () => {
  t = await authApp({
    SVC_AUTH: "local,oidc",
    SVC_AUTH_OIDC_ISSUER: provider.issuer,
    SVC_AUTH_OIDC_CLIENT_ID: provider.clientId,
  })
  await t.addUser("lou", "viewer")
  const cookie = await t.signIn("lou")
  expect(await (await t.call("POST", "/api/auth/oidc/logout", undefined, { cookie })).json()).toEqual({
    signed_out: true,
    redirect: null,
  })
  expect(await (await t.call("POST", "/api/auth/oidc/logout")).json()).toEqual({ signed_out: false, redirect: null })
})
