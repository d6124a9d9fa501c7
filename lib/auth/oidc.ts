// Single sign-on with an OpenID Connect provider, through openid-client: discovery, the
// authorization code flow with PKCE, the ID token's checks (signature, issuer, audience, expiry,
// nonce) and RP-initiated logout. What a sign-in under way needs (the PKCE verifier, state, nonce)
// stays in this process, found again by a short-lived cookie that carries only its random key.
import type { Configuration } from "openid-client"
import { invalid, notFound, unauthenticated, upstream } from "../errors/errors.ts"

export interface OidcConfig {
  /** SVC_AUTH_OIDC_ISSUER: the provider's issuer URL (its discovery document is read from it). */
  issuer: string
  clientId: string
  clientSecret: string | undefined
  /** SVC_AUTH_OIDC_REDIRECT_URL: the callback the provider sends the browser back to; unset, the request's origin + /api/auth/oidc/callback. */
  redirectUrl: string | undefined
  scopes: string
  /** SVC_AUTH_OIDC_ROLE_CLAIM: the ID token claim (a string or a list) mapped to a role. */
  roleClaim: string
}

/** Who signed in, as the provider's ID token says. */
export interface OidcIdentity {
  user: string
  /** The role claim's values (the user's groups, by default). */
  groups: string[]
}

interface Pending {
  verifier: string
  state: string
  nonce: string
  redirectUri: string
  expires: number
}

const COOKIE = "hm_oidc"
const PENDING_TTL = 10 * 60_000
const PENDING_MAX = 1000
export const CALLBACK_PATH = "/api/auth/oidc/callback"
export const DEFAULT_SCOPES = "openid profile email"
export const DEFAULT_ROLE_CLAIM = "groups"

const isLoopback = (url: URL) => ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)

function httpUrl(name: string, value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${value}"`)
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url)))
    throw new Error(`${name} must be https:// (plain http only on this host), got "${value}"`)
  return url
}

/** The SVC_AUTH_OIDC_* settings; throws with what is wrong. */
export function oidcSettings(env: Record<string, string | undefined>): OidcConfig {
  const issuer = env.SVC_AUTH_OIDC_ISSUER
  const clientId = env.SVC_AUTH_OIDC_CLIENT_ID
  if (!issuer || !clientId) throw new Error("SVC_AUTH=oidc needs SVC_AUTH_OIDC_ISSUER and SVC_AUTH_OIDC_CLIENT_ID")
  httpUrl("SVC_AUTH_OIDC_ISSUER", issuer)
  const redirectUrl = env.SVC_AUTH_OIDC_REDIRECT_URL || undefined
  if (redirectUrl) httpUrl("SVC_AUTH_OIDC_REDIRECT_URL", redirectUrl)
  const scopes = (env.SVC_AUTH_OIDC_SCOPES || DEFAULT_SCOPES).split(/[\s,]+/).filter(Boolean)
  if (!scopes.includes("openid"))
    throw new Error(`SVC_AUTH_OIDC_SCOPES must include openid, got "${env.SVC_AUTH_OIDC_SCOPES}"`)
  return {
    issuer,
    clientId,
    clientSecret: env.SVC_AUTH_OIDC_CLIENT_SECRET || undefined,
    redirectUrl,
    scopes: scopes.join(" "),
    roleClaim: env.SVC_AUTH_OIDC_ROLE_CLAIM || DEFAULT_ROLE_CLAIM,
  }
}

/** The context's single sign-on; 404 while SVC_AUTH does not name oidc. */
export function oidcOf(ctx: { oidc: Oidc | null }): Oidc {
  if (!ctx.oidc) throw notFound("single sign-on is off (SVC_AUTH does not name oidc)", "oidc_off")
  return ctx.oidc
}

/** The key of the sign-in under way, from its cookie. */
function pendingKey(request: Request): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, value] = part.trim().split("=")
    if (name === COOKIE && value) return value
  }
}

/** The OpenID Connect library, loaded by the first sign-in: a service that signs nobody in this way never holds it. */
type Client = typeof import("openid-client")

/** What the library found wrong: the provider's own error and description, or the check that failed. */
function reason(client: Client, err: unknown): string {
  if (err instanceof client.ResponseBodyError || err instanceof client.AuthorizationResponseError)
    return `the provider said ${err.error}${err.error_description ? `: ${err.error_description}` : ""}`
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err
  return cause instanceof Error ? cause.message : String(cause)
}

export class Oidc {
  private discovered: Promise<{ client: Client; provider: Configuration }> | undefined
  private readonly pending = new Map<string, Pending>()

  constructor(
    private readonly config: OidcConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** The provider's configuration, discovered once (again after a failure). */
  private provider(): Promise<{ client: Client; provider: Configuration }> {
    const { issuer, clientId, clientSecret } = this.config
    const url = new URL(issuer)
    this.discovered ??= import("openid-client")
      .then(async (client) => {
        const provider = await client.discovery(
          url,
          clientId,
          undefined,
          clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
          {
            // Plain http only to a provider on this host.
            execute: url.protocol === "http:" && isLoopback(url) ? [client.allowInsecureRequests] : [],
            timeout: 10,
          },
        )
        return { client, provider }
      })
      .catch((err) => {
        this.discovered = undefined
        throw upstream(
          `the identity provider's discovery at ${issuer} failed: ${err instanceof Error ? err.message : err}`,
          "oidc_unavailable",
        )
      })
    return this.discovered
  }

  private redirectUri(request: Request): string {
    return this.config.redirectUrl ?? new URL(CALLBACK_PATH, request.url).href
  }

  /** Starts a sign-in: where to send the browser, and the cookie that finds this sign-in again. */
  async begin(request: Request): Promise<{ location: string; cookie: string }> {
    const { client, provider } = await this.provider()
    const now = this.now()
    for (const [key, p] of this.pending)
      if (p.expires <= now || this.pending.size >= PENDING_MAX) this.pending.delete(key)
    const flow: Pending = {
      verifier: client.randomPKCECodeVerifier(),
      state: client.randomState(),
      nonce: client.randomNonce(),
      redirectUri: this.redirectUri(request),
      expires: now + PENDING_TTL,
    }
    const key = client.randomState()
    this.pending.set(key, flow)
    const location = client.buildAuthorizationUrl(provider, {
      redirect_uri: flow.redirectUri,
      scope: this.config.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: "S256",
      state: flow.state,
      nonce: flow.nonce,
    })
    const secure = flow.redirectUri.startsWith("https:") ? "; Secure" : ""
    return {
      location: location.href,
      cookie: `${COOKIE}=${key}; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${PENDING_TTL / 1000}${secure}`,
    }
  }

  /**
   * Ends a sign-in at the callback: the code is exchanged once, with the PKCE verifier, and the ID
   * token checked by the library. Each sign-in under way can be finished once.
   */
  async finish(request: Request): Promise<{ identity: OidcIdentity; cookie: string }> {
    const key = pendingKey(request)
    const flow = key && this.pending.get(key)
    if (key) this.pending.delete(key)
    if (!flow || flow.expires <= this.now())
      throw invalid(
        "no sign-in is under way in this browser (or it took more than 10 minutes); start again",
        "oidc_no_sign_in",
      )
    const { client, provider } = await this.provider()
    const current = new URL(flow.redirectUri)
    current.search = new URL(request.url).search
    let tokens: Awaited<ReturnType<Client["authorizationCodeGrant"]>>
    try {
      tokens = await client.authorizationCodeGrant(provider, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      })
    } catch (err) {
      throw unauthenticated(`the sign-in was refused: ${reason(client, err)}`, "oidc_sign_in_failed")
    }
    const claims = tokens.claims()!
    const values = claims[this.config.roleClaim]
    const groups = Array.isArray(values) ? values.map(String) : typeof values === "string" ? [values] : []
    const user = String(claims.preferred_username ?? claims.email ?? claims.sub)
    return { identity: { user, groups }, cookie: `${COOKIE}=; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0` }
  }

  /** The provider's end-session address to send the browser to after signing out, when its discovery has one. */
  async endSessionUrl(request: Request): Promise<string | undefined> {
    const { client, provider } = await this.provider()
    if (!provider.serverMetadata().end_session_endpoint) return undefined
    const back = new URL("/", this.redirectUri(request)).href
    return client.buildEndSessionUrl(provider, { client_id: this.config.clientId, post_logout_redirect_uri: back }).href
  }
}
