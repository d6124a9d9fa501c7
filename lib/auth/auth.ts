// The front door: who a request comes from (an API token, a session cookie, a trusted proxy's
// headers), whether their role may call a route, sign-in and sign-out, the one-time setup token and
// the audit log. Off (no mode in SVC_AUTH), every route is open as it is without it and nothing is
// recorded.
import { join } from "node:path"
import { HttpError } from "../http/http-error.ts"
import { originAllowed } from "../http/guard.ts"
import { AuditLog, type AuditInput } from "./audit.ts"
import type { AuthConfig } from "./config.ts"
import { isUserName, type Identity } from "./identity.ts"
import { AttemptLimiter } from "./limiter.ts"
import { Passwords, type Hasher } from "./passwords.ts"
import { proxyIdentity, trustList, type Trust } from "./proxy.ts"
import { permits, type RouteRole } from "./roles.ts"
import { hashesTo, randomSecret, sha256 } from "./secrets.ts"
import { Sessions } from "./sessions.ts"
import { Tokens } from "./tokens.ts"
import { checkName, checkPassword, Users } from "./users.ts"

export const SESSION_COOKIE = "hm_session"

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"])

export interface AuthOptions {
  config: AuthConfig
  dataDir: string
  now: () => number
  hasher?: Hasher
}

/** What the front door knows of one request: who, from where, and what the audit entry says. */
interface Seen {
  identity: Identity | null
  peer: string | undefined
  /** The user name a sign-in named (the entry's user when it failed). */
  claimed?: string
  action?: string
  /** True when the request carried an API token whose last use was written now. */
  tokenFirstUse?: boolean
  tool?: string
}

const unauthorized = (message = "sign in, or send Authorization: Bearer <API token>") =>
  new HttpError(401, "unauthorized", message)

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=")
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
}

const bearer = (request: Request) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1]

export class Auth {
  readonly config: AuthConfig
  readonly users: Users
  readonly sessions: Sessions
  readonly tokens: Tokens
  readonly audit: AuditLog
  readonly passwords: Passwords
  readonly limiter: AttemptLimiter
  private trust: Trust
  private seen = new WeakMap<Request, Seen>()
  /** How to close each open WebSocket, by user and by token. */
  private open = new Map<string, Set<() => void>>()
  private setupHash: string | undefined
  private now: () => number

  constructor(o: AuthOptions) {
    const dir = join(o.dataDir, "auth")
    this.config = o.config
    this.now = o.now
    this.users = new Users(dir)
    this.sessions = new Sessions(dir, o.config.session, o.now)
    this.tokens = new Tokens(dir, o.now)
    this.audit = new AuditLog(join(o.dataDir, "audit"), o.config.audit, o.now)
    this.passwords = new Passwords(o.hasher)
    this.limiter = new AttemptLimiter(o.now)
    this.trust = trustList(o.config.trustedProxies)
  }

  /** Sign-in is on: some mode is named in SVC_AUTH. */
  get enabled(): boolean {
    return this.config.modes.size > 0
  }

  /**
   * A one-time token that creates the first admin (POST /api/auth/setup), when local sign-in is on
   * and there is no admin yet; undefined otherwise. Made once; it works once.
   */
  setupToken(): string | undefined {
    if (!this.config.modes.has("local") || this.users.hasAdmin() || this.setupHash) return undefined
    const token = randomSecret()
    this.setupHash = sha256(token)
    return token
  }

  /** Creates the first admin with the setup token; the token then stops working. */
  async setup(token: string, user: string, password: string): Promise<Identity> {
    checkName(user)
    checkPassword(password)
    if (!this.setupHash || !hashesTo(token, this.setupHash) || this.users.hasAdmin())
      throw new HttpError(
        403,
        "setup_refused",
        "the setup token is wrong or was used; add users with `user add` on the server",
      )
    this.setupHash = undefined
    this.users.add(user, {
      role: "admin",
      hash: await this.passwords.hash(password),
      created: new Date(this.now()).toISOString(),
    })
    return { user, role: "admin", source: "local" }
  }

  private note(request: Request, seen: Partial<Seen>): Seen {
    const s = { identity: null, peer: undefined, ...this.seen.get(request), ...seen }
    this.seen.set(request, s)
    return s
  }

  /** The identity found for this request, once `identify` ran. */
  who(request: Request): Identity | null {
    return this.seen.get(request)?.identity ?? null
  }

  /** Marks the request for its audit entry: what it did (login, shell.open), the user it named, the MCP tool, who it is and from where. */
  mark(
    request: Request,
    what: { action?: string; claimed?: string; tool?: string; identity?: Identity; peer?: string },
  ): void {
    this.note(request, what)
  }

  /**
   * Who sent the request: an API token (Authorization: Bearer hm_...), a session cookie, or a trusted
   * proxy's headers, in that order; null when none. A token or session of a local user who is gone
   * counts for nothing; a local user's role is read from their record.
   */
  async identify(request: Request, peer?: string): Promise<Identity | null> {
    const known = this.seen.get(request)
    if (known?.identity) return known.identity
    let identity: Identity | null = null
    let tokenFirstUse: boolean | undefined
    const token = bearer(request)
    const cookie = cookieValue(request, SESSION_COOKIE)
    if (token) {
      const used = this.tokens.use(token)
      if (used && this.current(used.identity)) {
        identity = used.identity
        tokenFirstUse = used.firstUse
      }
    } else {
      const session = cookie ? this.sessions.get(cookie) : undefined
      identity = session ? this.current(session) : null
      if (identity) this.checkSameSite(request)
      else if (this.config.modes.has("proxy")) identity = proxyIdentity(request, peer, this.trust, this.config.roleMap)
    }
    this.note(request, { identity, peer, tokenFirstUse })
    return identity
  }

  /** The identity with a local user's current role and stacks; null when the local user is gone. */
  private current(identity: Identity): Identity | null {
    if (identity.source !== "local") return identity
    const user = this.users.get(identity.user)
    if (!user) return null
    const { created: _c, seen: _s, ...rest } = identity as Identity & { created?: number; seen?: number }
    if (identity.token) return rest
    return { ...rest, role: user.role, ...(user.stacks ? { stacks: user.stacks } : {}) }
  }

  /**
   * A session cookie is a browser's: on a change or a WebSocket it must come from this server's own
   * pages, never from another site (not even an origin SVC_CORS_ORIGINS lets read the API: a page
   * there calls with an API token).
   */
  private checkSameSite(request: Request): void {
    if (!UNSAFE.has(request.method) && request.headers.get("upgrade")?.toLowerCase() !== "websocket") return
    const site = request.headers.get("sec-fetch-site")
    const origin = request.headers.get("origin")
    const foreign =
      (site !== null && site !== "same-origin" && site !== "none") ||
      !originAllowed(origin, request.headers.get("host"), { corsOrigins: [], allowedHosts: [], listenHost: "" })
    if (foreign)
      throw new HttpError(
        403,
        "cross_site",
        "a session cookie is not accepted on a change or a WebSocket from another site",
      )
  }

  /**
   * Lets the request through when its caller's role may call a route that needs `need`: 401 without a
   * credential, 403 for a role too low or a stack outside the caller's. `stack` is the stack the route
   * names, if any.
   */
  async admit(request: Request, peer: string | undefined, need: RouteRole, stack?: string): Promise<Identity | null> {
    if (!this.enabled) return null
    if (need === "public") {
      // A public route still knows who calls it when it can (sign-out, the current user).
      return this.identify(request, peer).catch(() => null)
    }
    const identity = await this.identify(request, peer)
    if (!identity) throw unauthorized()
    if (!permits(identity.role, need))
      throw new HttpError(403, "forbidden", `this needs the ${need} role; ${identity.user} has ${identity.role}`)
    if (identity.stacks) {
      if (stack === undefined ? need !== "viewer" : !identity.stacks.includes(stack))
        throw new HttpError(
          403,
          "forbidden",
          `${identity.user} may act only on the stacks ${identity.stacks.join(", ")}`,
        )
    }
    return identity
  }

  private cookie(request: Request, value: string, maxAge: number): string {
    const secure = this.config.cookieSecure || new URL(request.url).protocol === "https:"
    return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`
  }

  /** A new session for `identity`: the Set-Cookie value that carries it. */
  async startSession(identity: Identity, request: Request): Promise<{ cookie: string }> {
    const id = this.sessions.start({
      user: identity.user,
      role: identity.role,
      source: identity.source,
      ...(identity.stacks && { stacks: identity.stacks }),
    })
    this.note(request, { identity })
    return { cookie: this.cookie(request, id, this.config.session.max) }
  }

  /**
   * Ends the request's session, if it was found through it (so not from another site): the
   * Set-Cookie value that clears the cookie.
   */
  async endSession(request: Request): Promise<{ cookie: string }> {
    const id = cookieValue(request, SESSION_COOKIE)
    if (id && this.who(request)) this.sessions.end(id)
    return { cookie: this.cookie(request, "", 0) }
  }

  /** Signs a local user in: rate-limited per user and per peer; a wrong user costs what a wrong password costs. */
  async login(
    user: string,
    password: string,
    request: Request,
    peer: string | undefined,
  ): Promise<{ identity: Identity; cookie: string }> {
    if (!this.config.modes.has("local"))
      throw new HttpError(404, "local_sign_in_off", "local sign-in is off (SVC_AUTH does not name local)")
    this.note(request, { claimed: isUserName(user) ? user : undefined, action: "login" })
    const keys = [`user:${user.toLowerCase()}`, `peer:${peer ?? "-"}`] as const
    this.limiter.begin([...keys])
    const record = isUserName(user) ? this.users.get(user) : undefined
    if (!(await this.passwords.check(password, record?.hash)) || !record)
      throw new HttpError(401, "sign_in_failed", "wrong user name or password")
    this.limiter.succeeded(...keys)
    const identity: Identity = {
      user,
      role: record.role,
      source: "local",
      ...(record.stacks && { stacks: record.stacks }),
    }
    return { identity, ...(await this.startSession(identity, request)) }
  }

  /**
   * Holds an open WebSocket's way to close under who opened it, until `release` (it closed): a user
   * forgotten or a token revoked closes theirs.
   */
  hold(identity: Identity, close: () => void): () => void {
    const keys = [`user:${identity.source}:${identity.user}`, ...(identity.token ? [`token:${identity.token}`] : [])]
    for (const key of keys) this.open.set(key, (this.open.get(key) ?? new Set()).add(close))
    return () => {
      for (const key of keys) {
        this.open.get(key)?.delete(close)
        if (!this.open.get(key)?.size) this.open.delete(key)
      }
    }
  }

  private closeHeld(key: string): void {
    for (const close of this.open.get(key) ?? []) close()
  }

  /** Ends every session, token and open WebSocket of a local user (removed, or their password or role changed). */
  forget(user: string): void {
    this.sessions.endAll(user)
    this.tokens.revokeAll(user)
    this.closeHeld(`user:local:${user}`)
  }

  /** Revokes one API token and closes the WebSockets opened with it. */
  revoke(id: string): void {
    this.tokens.revoke(id)
    this.closeHeld(`token:${id}`)
  }

  /**
   * The request's audit entry, when sign-in is on and it is one to keep: a change, a refusal, a
   * sign-in, a marked action, or a token's first use in a minute. `route` is the route's pattern; a
   * `quiet` route's refusals are its answers (who is signed in: nobody), kept only when marked.
   */
  record(
    request: Request,
    route: string,
    target: Record<string, string>,
    status: number,
    peer?: string,
    quiet = false,
  ): void {
    if (!this.enabled) return
    const s = this.seen.get(request)
    const refused = !quiet && (status === 401 || status === 403)
    const keep = UNSAFE.has(request.method) || refused || s?.action || s?.tool || s?.tokenFirstUse
    if (!keep) return
    this.write(request, { method: request.method, route, target, status, peer: s?.peer ?? peer })
  }

  /** Writes one audit entry for the request, with who made it. */
  write(
    request: Request,
    entry: Pick<AuditInput, "method" | "route" | "target" | "status"> & { action?: string; peer?: string },
  ): void {
    const s = this.seen.get(request)
    const who = s?.identity
    const input: AuditInput = {
      ...((entry.action ?? s?.action) ? { action: entry.action ?? s?.action } : {}),
      user: who?.user ?? s?.claimed ?? null,
      source: who?.source ?? null,
      role: who?.role ?? null,
      method: entry.method,
      route: entry.route,
      target: entry.target,
      status: entry.status,
      peer: entry.peer ?? s?.peer ?? null,
      token: who?.token ?? null,
      ...(s?.tool ? { tool: s.tool } : {}),
      ...(who?.via ? { via: who.via } : {}),
    }
    this.audit.write(input)
  }
}
