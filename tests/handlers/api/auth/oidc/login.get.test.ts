import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { authApp, type AuthTestApp } from "../../../../support/auth.ts"
import { startProvider, type IdentityProvider } from "../../../../support/oidc.ts"

let provider: IdentityProvider
let t: AuthTestApp
beforeAll(async () => {
  provider = await startProvider({
    accounts: {},
    redirectUris: ["http://127.0.0.1:8080/api/auth/oidc/callback"],
    postLogoutRedirectUris: [],
  })
})
afterAll(() => provider.stop())
afterEach(() => t.close())

test("sends the browser to the provider with PKCE, state and nonce, and a cookie that finds the sign-in again", async () => {
  t = await authApp({
    SVC_AUTH: "local,oidc",
    SVC_AUTH_OIDC_ISSUER: provider.issuer,
    SVC_AUTH_OIDC_CLIENT_ID: provider.clientId,
  })
  const res = await t.call("GET", "/api/auth/oidc/login")
  expect(res.status).toBe(302)
  const location = new URL(res.headers.get("location")!)
  expect(`${location.origin}${location.pathname}`).toBe(`${provider.issuer}/auth`)
  expect(
    Object.fromEntries(
      ["client_id", "redirect_uri", "response_type", "scope", "code_challenge_method"].map((k) => [
        k,
        location.searchParams.get(k),
      ]),
    ),
  ).toEqual({
    client_id: provider.clientId,
    redirect_uri: "http://127.0.0.1:8080/api/auth/oidc/callback",
    response_type: "code",
    scope: "openid profile email",
    code_challenge_method: "S256",
  })
  expect(res.headers.get("set-cookie")).toMatch(
    /^hm_oidc=[\w-]+; Path=\/api\/auth\/oidc; HttpOnly; SameSite=Lax; Max-Age=600$/,
  )
  expect(res.headers.get("cache-control")).toBe("no-store")
})

test("404 while SVC_AUTH does not name oidc", async () => {
  t = await authApp()
  const res = await t.call("GET", "/api/auth/oidc/login")
  expect(res.status).toBe(404)
  expect((await res.json()).error.code).toBe("oidc_off")
})

test("502 when the provider's discovery cannot be read", async () => {
  t = await authApp({ SVC_AUTH: "oidc", SVC_AUTH_OIDC_ISSUER: "http://127.0.0.1:9", SVC_AUTH_OIDC_CLIENT_ID: "x" })
  const res = await t.call("GET", "/api/auth/oidc/login")
  expect(res.status).toBe(502)
  expect((await res.json()).error.code).toBe("oidc_unavailable")
})
