// A real OpenID Connect identity provider on loopback for tests: oidc-provider 9 with its built-in
// development login pages (any password signs in the account named). Each account's `groups` claim
// comes from `accounts`; one confidential client is registered for the service under test.
// `tamper` rewrites the next ID token the token endpoint issues (re-signed with the provider's own
// key), so a test can hand the service a token with a wrong audience or issuer.
import { createServer, type Server } from "node:http"
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto"
import Provider from "oidc-provider"
import { freePort } from "./service.ts"

export interface IdentityProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Rewrites the claims of the next ID token issued, once. */
  tamper(edit: (claims: Record<string, unknown>) => Record<string, unknown>): void
  stop(): Promise<void>
}

export interface ProviderOptions {
  /** Account name → the groups its ID token names. */
  accounts: Record<string, string[]>
  /** Where the client may be sent back to after sign-in (the service's callback) and after sign-out. */
  redirectUris: string[]
  postLogoutRedirectUris: string[]
}

const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url")

export async function startProvider(options: ProviderOptions): Promise<IdentityProvider> {
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}`
  const clientId = "harbormaster"
  const clientSecret = "test-client-secret-" + crypto.randomUUID()
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "test-key", use: "sig", alg: "RS256" }
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris,
      },
    ],
    jwks: { keys: [jwk] },
    claims: { openid: ["sub"], profile: ["name"], groups: ["groups"] },
    scopes: ["openid", "profile", "groups"],
    // The ID token carries the claims itself (the service reads no userinfo).
    conformIdTokenClaims: false,
    ttl: { Grant: 3600, AccessToken: 3600, IdToken: 3600, Interaction: 600, Session: 3600 },
    async findAccount(_ctx, id) {
      if (!(id in options.accounts)) return undefined
      return { accountId: id, claims: () => ({ sub: id, name: id, groups: options.accounts[id] }) }
    },
  })
  let edit: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined
  const key = createPrivateKey({ key: jwk, format: "jwk" })
  provider.use(async (ctx, next) => {
    await next()
    const body = ctx.body as { id_token?: string } | undefined
    if (ctx.path !== "/token" || !edit || !body?.id_token) return
    const [header, payload] = body.id_token.split(".")
    const claims = edit(JSON.parse(Buffer.from(payload!, "base64url").toString()))
    edit = undefined
    const input = `${header}.${b64url(JSON.stringify(claims))}`
    ctx.body = { ...body, id_token: `${input}.${b64url(sign("sha256", Buffer.from(input), key))}` }
  })
  provider.on("server_error", (_ctx, err) => console.error("identity provider:", err))
  const server: Server = createServer(provider.callback())
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    issuer,
    clientId,
    clientSecret,
    tamper: (fn) => void (edit = fn),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** Form posts and cookies of one browser at the provider. */
class ProviderBrowser {
  private readonly cookies = new Map<string, string>()
  async go(url: string, form?: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(form && { "content-type": "application/x-www-form-urlencoded" }),
      },
      body: form && new URLSearchParams(form),
    })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";")
      const at = pair!.indexOf("=")
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
    return res
  }
}

/**
 * Signs `account` in at the provider through its development login and consent pages, starting at
 * the authorization address a service sent the browser to; answers the address the provider sends
 * the browser back to (the service's callback with its code and state).
 */
export async function authorize(
  provider: IdentityProvider,
  authorizationUrl: string,
  account: string,
): Promise<string> {
  const browser = new ProviderBrowser()
  let url = authorizationUrl
  for (let step = 0; step < 10; step++) {
    let res = await browser.go(url)
    if (res.status === 200) {
      const page = await res.text()
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1]
      if (!prompt) throw new Error(`the provider's page at ${url} has no form: ${page.slice(0, 500)}`)
      res = await browser.go(url, prompt === "login" ? { prompt, login: account, password: "any" } : { prompt })
    }
    const location = res.headers.get("location")
    if (!location) throw new Error(`the provider answered ${res.status} at ${url}: ${(await res.text()).slice(0, 500)}`)
    url = new URL(location, url).href
    if (!url.startsWith(provider.issuer)) return url
  }
  throw new Error("the provider's sign-in did not end in 10 steps")
}
