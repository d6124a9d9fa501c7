// The registry API as the service speaks it itself (the engine pulls on its own): a login that says
// what the registry answered, and the digest a tag has now (update checks). Authentication follows
// the registry's challenge on 401: `Basic` gets the user name and password, `Bearer` sends them to the
// token service the challenge names (realm, service, scope) and the token it answers to the registry;
// without credentials the bearer flow asks for an anonymous token. A private CA is trusted for this
// registry alone; plain http only for a registry said to be insecure. Every answer's pull quota
// (`ratelimit-limit` / `ratelimit-remaining`, which Docker Hub sends) is handed to `onQuota`; a 429 is
// an error naming the registry. The password goes to the registry or its token service and nowhere
// else: no error, log or answer carries it.
import { DOCKER_HUB, DOCKER_HUB_API, type ImageRef } from "../engine/reference.ts"
import { notFound, rateLimited, upstream } from "../errors/errors.ts"

/** A registry as the client reaches it. */
export interface Endpoint {
  /** host[:port] as references name it; `docker.io` for Docker Hub. */
  host: string
  /** Plain http. */
  insecure: boolean
  /** PEM certificates of a private CA, trusted for this registry (and its token service) instead of the system's. */
  ca?: string | null
  username?: string | null
  password?: string | null
}

/** The pull quota a registry reported (Docker Hub: pulls left in its window). */
export interface Quota {
  limit: number | null
  remaining: number
  window_seconds: number | null
  checked_at: string
}

export interface ClientOptions {
  fetch?: typeof fetch
  /** Milliseconds each request may take. */
  timeoutMs?: number
  now?: () => number
  /** Hears every pull quota a registry reports. */
  onQuota?: (host: string, quota: Quota) => void
}

export const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
]

/** Parses a `WWW-Authenticate` challenge: its scheme and its parameters (`realm`, `service`, `scope`...). */
export function parseChallenge(header: string): { scheme: string; params: Record<string, string> } | undefined {
  const m = /^\s*(\w+)\s*(.*)$/.exec(header)
  if (!m) return undefined
  const params = Object.fromEntries(
    [...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((p) => [p[1]!.toLowerCase(), p[2]!] as const),
  )
  return { scheme: m[1]!.toLowerCase(), params }
}

/** `76;w=21600` as a count and a window in seconds. */
function quotaValue(header: string | null): { n: number; w: number | null } | undefined {
  const m = /^\s*(\d+)(?:\s*;\s*w=(\d+))?/.exec(header ?? "")
  return m ? { n: Number(m[1]), w: m[2] ? Number(m[2]) : null } : undefined
}

/** The pull quota an answer carries, if any. */
export function quotaOf(headers: Headers, now: number): Quota | undefined {
  const remaining = quotaValue(headers.get("ratelimit-remaining"))
  if (!remaining) return undefined
  const limit = quotaValue(headers.get("ratelimit-limit"))
  return {
    limit: limit?.n ?? null,
    remaining: remaining.n,
    window_seconds: remaining.w ?? limit?.w ?? null,
    checked_at: new Date(now).toISOString(),
  }
}

const baseUrl = (e: Endpoint) => `${e.insecure ? "http" : "https"}://${e.host === DOCKER_HUB ? DOCKER_HUB_API : e.host}`

const why = (err: unknown) => (err instanceof Error ? err.message : String(err))

/** What a TLS failure of Bun's fetch says: a certificate no trusted CA signed, a name that does not match. */
const TLS_FAILURE =
  /certificate|self.signed|unable to (get|verify)|CERT_|DEPTH_ZERO|ERR_TLS|SSL|alert|hostname|altnames|wrong version number/i

/** The text of a registry's or token service's error answer (its `errors[].message`, `details`, or the text). */
async function said(res: Response): Promise<string> {
  const text = (await res.text().catch(() => "")).slice(0, 2000)
  try {
    const body = JSON.parse(text)
    const messages = (body.errors ?? []).map((e: { code?: string; message?: string }) =>
      [e.code, e.message].filter(Boolean).join(": "),
    )
    if (messages.length) return messages.join("; ")
    if (typeof body.details === "string") return body.details
    if (typeof body.message === "string") return body.message
  } catch {}
  return text.trim().slice(0, 300) || `HTTP ${res.status}`
}

export type AuthScheme = "none" | "basic" | "bearer"

/**
 * One conversation with a registry: requests go out with the authorization the last challenge
 * asked for, which is made again when the registry answers 401.
 */
export class RegistrySession {
  private authorization: string | undefined
  /** The scheme the registry asked for (none until it answered 401). */
  scheme: AuthScheme = "none"
  private readonly doFetch: typeof fetch
  private readonly now: () => number

  constructor(
    readonly endpoint: Endpoint,
    private readonly parts: ClientOptions = {},
  ) {
    this.doFetch = parts.fetch ?? fetch
    this.now = parts.now ?? Date.now
  }

  private get name() {
    return this.endpoint.host
  }

  private async send(url: string, init: RequestInit & { headers?: Record<string, string> }, what: string) {
    const ca = this.endpoint.ca
    let res: Response
    try {
      res = await this.doFetch(url, {
        ...init,
        // A redirect is not followed: the credentials would go with it to wherever it leads.
        redirect: "manual",
        signal: AbortSignal.timeout(this.parts.timeoutMs ?? 15_000),
        ...(ca ? { tls: { ca } } : {}),
      } as RequestInit)
    } catch (err) {
      const message = why(err)
      if (TLS_FAILURE.test(message) || TLS_FAILURE.test((err as { code?: string })?.code ?? ""))
        throw upstream(
          `registry ${this.name}: ${what} failed on its TLS certificate (${message}); give the registry its CA certificate, or mark it insecure if it speaks plain http`,
          "registry_tls",
        )
      if ((err as Error)?.name === "TimeoutError")
        throw upstream(
          `registry ${this.name}: ${what} did not answer within ${(this.parts.timeoutMs ?? 15_000) / 1000} s`,
          "registry_unreachable",
        )
      throw upstream(`registry ${this.name} is unreachable: ${what}: ${message}`, "registry_unreachable")
    }
    const quota = quotaOf(res.headers, this.now())
    if (quota) this.parts.onQuota?.(this.name, quota)
    if (res.status === 429) {
      const retry = Number(res.headers.get("retry-after"))
      throw rateLimited(
        `registry ${this.name} refused ${what}: too many requests (429${quota ? `, ${quota.remaining} pulls left` : ""}): ${await said(res)}`,
        "registry_rate_limited",
        { retryAfter: Number.isFinite(retry) && retry > 0 ? retry : 60 },
      )
    }
    return res
  }

  /** `path` on the registry, authenticated as its challenge asks; `scope` is what a bearer token is asked for. */
  async request(path: string, init: { method: string; accept?: string }, scope?: string): Promise<Response> {
    const url = `${baseUrl(this.endpoint)}${path}`
    const go = () =>
      this.send(
        url,
        {
          method: init.method,
          headers: {
            ...(init.accept ? { accept: init.accept } : {}),
            ...(this.authorization ? { authorization: this.authorization } : {}),
          },
        },
        `${init.method} ${path}`,
      )
    let res = await go()
    if (res.status !== 401) return res
    const challenge = parseChallenge(res.headers.get("www-authenticate") ?? "")
    await res.arrayBuffer().catch(() => {})
    const tried = this.authorization
    this.authorization = await this.authorize(challenge, scope)
    if (this.authorization === tried) return res
    res = await go()
    if (res.status === 401)
      throw upstream(
        this.scheme === "bearer"
          ? `registry ${this.name} refused the token its token service issued (expired, or without access to ${scope ?? "the registry"}): ${await said(res)}`
          : `registry ${this.name} refused the credentials${this.endpoint.username ? ` of user ${this.endpoint.username}` : ""}: ${await said(res)}`,
        "registry_unauthorized",
      )
    return res
  }

  /** The Authorization header a challenge asks for. */
  private async authorize(
    challenge: ReturnType<typeof parseChallenge>,
    scope: string | undefined,
  ): Promise<string | undefined> {
    const { username, password } = this.endpoint
    const basic = username ? `Basic ${Buffer.from(`${username}:${password ?? ""}`).toString("base64")}` : undefined
    if (challenge?.scheme === "basic") {
      this.scheme = "basic"
      if (!basic)
        throw upstream(
          `registry ${this.name} asks for a user name and password (Basic) and none is kept for it`,
          "registry_unauthorized",
        )
      return basic
    }
    if (challenge?.scheme !== "bearer" || !challenge.params.realm)
      throw upstream(
        `registry ${this.name} answered 401 with no challenge the service can follow (${challenge?.scheme ?? "none"})`,
        "registry_unauthorized",
      )
    this.scheme = "bearer"
    return `Bearer ${await this.token(challenge.params, scope, basic)}`
  }

  /** A token from the challenge's token service (the registry's token authentication), with the credentials as Basic. */
  private async token(params: Record<string, string>, scope: string | undefined, basic: string | undefined) {
    let url: URL
    try {
      url = new URL(params.realm!)
    } catch {
      throw upstream(`registry ${this.name} names a token service that is no URL`, "registry_unauthorized")
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw upstream(`registry ${this.name} names a token service that is not http(s)`, "registry_unauthorized")
    if (params.service) url.searchParams.set("service", params.service)
    const wanted = scope ?? params.scope
    if (wanted) url.searchParams.set("scope", wanted)
    if (this.endpoint.username) url.searchParams.set("account", this.endpoint.username)
    const res = await this.send(
      url.href,
      { method: "GET", headers: basic ? { authorization: basic } : {} },
      `the token service ${url.host}`,
    )
    if (!res.ok)
      throw upstream(
        `the token service of registry ${this.name} (${url.host}) refused ${this.endpoint.username ? `user ${this.endpoint.username}` : "an anonymous token"} (${res.status}): ${await said(res)}`,
        "registry_unauthorized",
      )
    const body = (await res.json().catch(() => ({}))) as { token?: string; access_token?: string }
    const token = body.token ?? body.access_token
    if (!token) throw upstream(`the token service of registry ${this.name} answered no token`, "registry_unauthorized")
    return token
  }
}

/** What a login said: how the registry asked to be spoken to, and its answer. */
export interface LoginResult {
  auth: AuthScheme
  status: number
  message: string
}

/** Logs in as `docker login` does: `GET /v2/` answered 200 once authenticated as the registry asks. */
export async function login(endpoint: Endpoint, o: ClientOptions = {}): Promise<LoginResult> {
  const session = new RegistrySession(endpoint, o)
  const res = await session.request("/v2/", { method: "GET" })
  await res.arrayBuffer().catch(() => {})
  if (!res.ok)
    throw upstream(
      `registry ${endpoint.host} answered ${res.status} to GET /v2/: it may not be a registry`,
      "registry_error",
    )
  const who = endpoint.username ? `user ${endpoint.username}` : "anonymous access"
  const message =
    session.scheme === "none"
      ? `the registry answered without asking for credentials (${who})`
      : `logged in with ${session.scheme === "basic" ? "Basic authentication" : "a token from its token service"} as ${who}`
  return { auth: session.scheme, status: res.status, message }
}

/** The digest the registry serves now for the reference's tag (HEAD on the manifest, every manifest type accepted). */
export async function remoteDigest(endpoint: Endpoint, ref: ImageRef, o: ClientOptions = {}): Promise<string> {
  const session = new RegistrySession(endpoint, o)
  const path = `/v2/${ref.repository}/manifests/${ref.tag}`
  const scope = `repository:${ref.repository}:pull`
  const accept = MANIFEST_TYPES.join(", ")
  const res = await session.request(path, { method: "HEAD", accept }, scope)
  if (res.status === 404)
    throw notFound(`registry ${ref.registry} has no ${ref.repository}:${ref.tag}`, "image_not_found")
  if (!res.ok) throw upstream(`registry ${ref.registry}: the manifest request answered ${res.status}`, "registry_error")
  const digest = res.headers.get("docker-content-digest")
  if (digest) return digest
  // A registry that leaves the header out of HEAD: the digest is the sha256 of the manifest as served.
  const body = await (await session.request(path, { method: "GET", accept }, scope)).arrayBuffer()
  return `sha256:${new Bun.CryptoHasher("sha256").update(body).digest("hex")}`
}

/** Docker Hub's pull quota for these credentials (anonymous without), read off a HEAD, which Docker Hub does not count. */
export async function hubQuota(endpoint: Endpoint, o: ClientOptions = {}): Promise<Quota | null> {
  const session = new RegistrySession({ ...endpoint, host: DOCKER_HUB, insecure: false }, o)
  const repository = "ratelimitpreview/test"
  const res = await session.request(
    `/v2/${repository}/manifests/latest`,
    { method: "HEAD", accept: MANIFEST_TYPES.join(", ") },
    `repository:${repository}:pull`,
  )
  return quotaOf(res.headers, (o.now ?? Date.now)()) ?? null
}
