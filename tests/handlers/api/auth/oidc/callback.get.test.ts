import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { authApp, type AuthTestApp } from "../../../../support/auth.ts"
import { authorize, startProvider, type IdentityProvider } from "../../../../support/oidc.ts"

let provider: IdentityProvider
let t: AuthTestApp
beforeAll(async () => {
  provider = await startProvider({
    accounts: { ada: ["ops", "admins"], nora: ["sales"] },
    redirectUris: ["http://127.0.0.1:8080/api/auth/oidc/callback"],
    postLogoutRedirectUris: [],
  })
})
afterAll(() => provider.stop())
afterEach(() => t.close())

const app = () =>
  authApp({
    SVC_AUTH: "oidc",
    SVC_AUTH_OIDC_ISSUER: provider.issuer,
    SVC_AUTH_OIDC_CLIENT_ID: provider.clientId,
    SVC_AUTH_OIDC_CLIENT_SECRET: provider.clientSecret,
    SVC_AUTH_OIDC_SCOPES: "openid groups",
    SVC_AUTH_ROLE_MAP: "admins=admin,ops=operator",
  })

/** The callback of `account`'s sign-in, with the sign-in's cookie. */
async function callback(account: string): Promise<Response> {
  const login = await t.call("GET", "/api/auth/oidc/login")
  const back = new URL(await authorize(provider, login.headers.get("location")!, account))
  return t.call("GET", `${back.pathname}${back.search}`, undefined, {
    cookie: login.headers.get("set-cookie")!.split(";")[0]!,
  })
}

test("begins the session with the first role the map gives the user's groups, clears the sign-in's cookie, and is audited", async () => {
  t = await app()
  const res = await callback("ada")
  expect(res.status).toBe(302)
  expect(res.headers.get("location")).toBe("/")
  const cookies = res.headers.getSetCookie()
  expect(cookies[0]).toStartWith("hm_oidc=; Path=/api/auth/oidc;")
  const session = cookies.find((c) => c.startsWith("hm_session="))!.split(";")[0]!
  expect(await (await t.call("GET", "/api/auth/me", undefined, { cookie: session })).json()).toMatchObject({
    user: "ada",
    role: "admin",
    source: "oidc",
  })
  const [entry] = (await t.ctx.auth.audit.query({ action: "login", limit: 1 })).entries
  expect(entry).toMatchObject({
    user: "ada",
    source: "oidc",
    role: "admin",
    route: "/api/auth/oidc/callback",
    status: 302,
    result: "ok",
  })
})

test("a user no rule maps is refused with 403 no_role, gets no session, and the refusal is audited", async () => {
  t = await app()
  const res = await callback("nora")
  expect(res.status).toBe(403)
  expect((await res.json()).error.code).toBe("no_role")
  expect(res.headers.getSetCookie().some((c) => c.startsWith("hm_session="))).toBe(false)
  const [entry] = (await t.ctx.auth.audit.query({ action: "login", limit: 1 })).entries
  expect(entry).toMatchObject({ user: "nora", role: null, status: 403, result: "denied" })
})

test("without the sign-in's cookie: 400 oidc_no_sign_in", async () => {
  t = await app()
  const res = await t.call("GET", "/api/auth/oidc/callback?code=x&state=y")
  expect(res.status).toBe(400)
  expect((await res.json()).error.code).toBe("oidc_no_sign_in")
})
