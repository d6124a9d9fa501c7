// The front door: who a request comes from (an API token, a session cookie, a trusted proxy's
// headers) and from which address, whether their grant may call a route, sign-in and sign-out, the
// one-time setup token, the event streams and WebSockets each credential holds open (ended when it
// ends), and the audit log. Off (no mode in SVC_AUTH), every route is open as it is without it and
// nothing is recorded.
import { join } from "node:path"
import { conflict, invalid, notFound, refused, unauthenticated, type DomainError } from "../errors/errors.ts"
import { originAllowed } from "../http/guard.ts"
import { AuditLog, type AuditInput } from "./audit.ts"
import type { AuthConfig } from "./config.ts"
import { Factors, looksLikeRecoveryCode, MAX_PASSKEYS, type Method, type PasskeyRecord } from "./factors.ts"
import { isUserName, type Identity } from "./identity.ts"
import { addressKey, AttemptLimiter, signInLimits } from "./limiter.ts"
import { Passwords, type Hasher } from "./passwords.ts"
import { Pending, PENDING_COOKIE, PENDING_MS, type Purpose, type Stage } from "./pending.ts"
import { clientAddress, proxyIdentity, trustList, type Trust } from "./proxy.ts"
import type { Role, RouteRole } from "./roles.ts"
import { narrower, reaches, type Grant } from "./scope.ts"
import { hashesTo, randomSecret, sha256 } from "./secrets.ts"
import { Sessions, type SessionRecord } from "./sessions.ts"
import { Tokens, type TokenRecord } from "./tokens.ts"
import { matchStep } from "./totp.ts"
import { checkName, checkPassword, Users } from "./users.ts"
import {
  type AuthenticationResponseJSON,
  authenticationOptions,
  clientData,
  counterWentBack,
  type RegistrationResponseJSON,
  type RelyingParty,
  registrationOptions,
  relyingParty,
  verifyAssertion,
  verifyRegistration,
} from "./webauthn.ts"

export const SESSION_COOKIE = "hm_session"

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** How often what is held open is checked against its credential (milliseconds). */
export const SWEEP_MS = 250

export interface AuthOptions {
  config: AuthConfig
  dataDir: string
  now: () => number
  hasher?: Hasher
}

/** The credential a request came with, as it can be checked again later. */
type Credential = { kind: "token"; id: string } | { kind: "session"; key: string }

/** What the front door knows of one request: who, from where, with what, and what the audit entry says. */
interface Seen {
  identity: Identity | null
  /** The caller's address (behind a trusted proxy, the one it forwarded). */
  peer: string | undefined
  credential?: Credential
  /** What the route it was admitted to needs, and the stack it names. */
  need?: RouteRole
  stack?: string
  /** The user name a sign-in named (the entry's user when it failed). */
  claimed?: string
  action?: string
  /** True when the request carried an API token whose last use was written now. */
  tokenFirstUse?: boolean
  tool?: string
}

/** Something held open (an event stream, a WebSocket) and how to end it, with the reason. */
interface Held {
  seen: Seen
  end(reason: string): void
}

const noCredential = (message = "sign in, or send Authorization: Bearer <API token>") => unauthenticated(message)

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=")
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
}

/** Who is setting up a factor: a local user signed in with a session, or one sent to enrol after their password. */
export interface Enrollee {
  user: string
  role: Role
  /** The pending sign-in's cookie value, when the enrolment finishes a sign-in. */
  pending?: string
}

/** What a right password leads to: a session, or a second step (with the ways the user can take it). */
export type SignIn = { cookie: string } & ({ identity: Identity } | { next: Stage; methods: Method[] })

const bearer = (request: Request) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1]

export class Auth {
  readonly config: AuthConfig
  readonly users: Users
  readonly sessions: Sessions
  readonly tokens: Tokens
  readonly audit: AuditLog
  readonly passwords: Passwords
  readonly limiter: AttemptLimiter
  readonly factors: Factors
  readonly pending: Pending
  private trust: Trust
  private seen = new WeakMap<Request, Seen>()
  private held = new Set<Held>()
  private sweeper: ReturnType<typeof setInterval> | undefined
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
    this.factors = new Factors(o.dataDir)
    this.pending = new Pending(o.now)
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
      throw refused("the setup token is wrong or was used; add users with `user add` on the server", "setup_refused")
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
   * counts for nothing; a local user's role and stacks are read from their record, and a token's
   * are met with its owner's.
   */
  async identify(request: Request, peer?: string): Promise<Identity | null> {
    const known = this.seen.get(request)
    if (known?.identity) return known.identity
    const address = clientAddress(request, peer, this.trust)
    let identity: Identity | null = null
    let credential: Credential | undefined
    let tokenFirstUse: boolean | undefined
    const token = bearer(request)
    const cookie = cookieValue(request, SESSION_COOKIE)
    if (token) {
      const used = this.tokens.use(token)
      identity = used ? this.ofToken(used.record) : null
      if (identity) {
        credential = { kind: "token", id: used!.record.id }
        tokenFirstUse = used!.firstUse
      }
    } else {
      const session = cookie ? this.sessions.get(cookie) : undefined
      identity = session ? this.ofSession(session) : null
      if (identity) {
        credential = { kind: "session", key: session!.key }
        this.checkSameSite(request)
      } else if (this.config.modes.has("proxy"))
        identity = proxyIdentity(request, peer, this.trust, this.config.roleMap)
    }
    this.note(request, { identity, peer: address, credential, tokenFirstUse })
    return identity
  }

  /** A local user's grant now; null when they are gone. Any other user's is what their credential says. */
  private owner(identity: Pick<Identity, "user" | "source" | "role" | "stacks">): Grant | null {
    if (identity.source !== "local") return { role: identity.role, ...(identity.stacks && { stacks: identity.stacks }) }
    const user = this.users.get(identity.user)
    return user ? { role: user.role, ...(user.stacks && { stacks: user.stacks }) } : null
  }

  /** What a token stands for now: its grant met with its owner's; null when the owner is gone. */
  private ofToken(t: TokenRecord): Identity | null {
    const owner = this.owner(t)
    if (!owner) return null
    const grant = narrower(t, owner)
    return {
      user: t.user,
      source: t.source,
      role: grant.role,
      ...(grant.stacks && { stacks: [...grant.stacks] }),
      token: t.id,
      mcpConfirm: t.mcp_confirm,
    }
  }

  /** What a session stands for now: a local user's current role and stacks; null when they are gone. */
  private ofSession(s: SessionRecord): Identity | null {
    const owner = this.owner(s)
    if (!owner) return null
    return { user: s.user, source: s.source, role: owner.role, ...(owner.stacks && { stacks: [...owner.stacks] }) }
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
      throw refused("a session cookie is not accepted on a change or a WebSocket from another site", "cross_site")
  }

  /**
   * Lets the request through when its caller's grant reaches a route that needs `need`: 401 without a
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
    if (!identity) throw noCredential()
    this.note(request, { need, stack })
    if (this.sessionKey(request) && this.mustEnrol(identity))
      throw refused(
        `${identity.user} must set up a second factor first (SVC_AUTH_MFA=${this.config.mfa}): an authenticator app, on the Account page`,
        "enrolment_required",
      )
    if (!reaches(identity, need, stack)) {
      if (!reaches({ role: identity.role }, need))
        throw refused(`this needs the ${need} role; ${identity.user} has ${identity.role}`)
      throw refused(
        `${identity.user} may act only on the stacks ${identity.stacks!.join(", ") || "(none)"}${stack === undefined ? ", and elsewhere only read" : ""}`,
      )
    }
    return identity
  }

  private cookie(request: Request, value: string, maxAge: number): string {
    const secure = this.config.cookieSecure || new URL(request.url).protocol === "https:"
    return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`
  }

  /** A new session for `identity`, with the request's User-Agent and address: the Set-Cookie value that carries it. */
  async startSession(identity: Identity, request: Request): Promise<{ cookie: string }> {
    const agent = request.headers.get("user-agent") ?? undefined
    const address = this.seen.get(request)?.peer
    const id = await this.sessions.start(
      {
        user: identity.user,
        role: identity.role,
        source: identity.source,
        ...(identity.stacks && { stacks: identity.stacks }),
      },
      { agent, address },
    )
    this.note(request, { identity })
    return { cookie: this.cookie(request, id, this.config.session.max) }
  }

  /**
   * Ends the request's session, if it was found through it (so not from another site), and what was
   * opened with it: the Set-Cookie value that clears the cookie.
   */
  async endSession(request: Request): Promise<{ cookie: string }> {
    const id = cookieValue(request, SESSION_COOKIE)
    if (id && this.who(request)) {
      this.sessions.end(id)
      this.sweep()
    }
    return { cookie: this.cookie(request, "", 0) }
  }

  /**
   * Signs a local user in. Limited per (user, caller's address) and per address before any password
   * is checked, the check waiting in the caller's address's lane; a wrong user costs what a wrong
   * password costs.
   */
  async login(user: string, password: string, request: Request, peer: string | undefined): Promise<SignIn> {
    this.localOn()
    const address = clientAddress(request, peer, this.trust)
    this.note(request, { claimed: isUserName(user) ? user : undefined, action: "login", peer: address })
    const limits = signInLimits(user, address)
    this.limiter.begin(limits)
    const record = isUserName(user) ? this.users.get(user) : undefined
    const checked = this.passwords.check(password, record?.hash, addressKey(address))
    const right = await checked.catch((err) => {
      // Refused before its check (its address's lane, or the queue, full): no failure of the password.
      this.limiter.takeBack(limits)
      throw err
    })
    if (!right || !record) {
      this.limiter.failed(limits)
      throw unauthenticated("wrong user name or password", "sign_in_failed")
    }
    const methods = this.factors.methods(user)
    if (methods.length) {
      // The second factor's failures count under the same keys: the password clears none of them.
      this.limiter.takeBack(limits)
      return { next: "second_factor", methods, cookie: this.pendingCookie(request, user, "second_factor") }
    }
    this.limiter.succeeded(limits)
    if (this.mfaRequired(record.role))
      return { next: "enrol", methods, cookie: this.pendingCookie(request, user, "enrol") }
    return this.signedIn(user, request)
  }

  private localOn(): void {
    if (!this.config.modes.has("local"))
      throw notFound("local sign-in is off (SVC_AUTH does not name local)", "local_sign_in_off")
  }

  /** A session for a local user whose sign-in is complete. */
  private async signedIn(user: string, request: Request): Promise<{ identity: Identity; cookie: string }> {
    const record = this.users.get(user)
    if (!record) throw unauthenticated("wrong user name or password", "sign_in_failed")
    const identity: Identity = {
      user,
      role: record.role,
      source: "local",
      ...(record.stacks && { stacks: record.stacks }),
    }
    return { identity, ...(await this.startSession(identity, request)) }
  }

  /** A pending sign-in's cookie: sent to the sign-in routes only, never from another site. */
  private pendingCookie(request: Request, user: string, stage: Stage): string {
    const secure = this.config.cookieSecure || new URL(request.url).protocol === "https:"
    const id = this.pending.start(user, stage)
    return `${PENDING_COOKIE}=${id}; Path=/api/auth; HttpOnly; SameSite=Strict; Max-Age=${PENDING_MS[stage] / 1000}${secure ? "; Secure" : ""}`
  }

  /** The request's pending sign-in, and its cookie's value. */
  pendingOf(request: Request): ({ id: string } & NonNullable<ReturnType<Pending["get"]>>) | undefined {
    const id = cookieValue(request, PENDING_COOKIE)
    const p = this.pending.get(id)
    return p && id ? { id, ...p } : undefined
  }

  /** Whether SVC_AUTH_MFA makes a local user of this role have a second factor. */
  mfaRequired(role: Role): boolean {
    return this.config.mfa === "all" || (this.config.mfa === "admins" && role === "admin")
  }

  /** A local user who must have a second factor and has none: they may only enrol one. */
  mustEnrol(identity: Pick<Identity, "user" | "role" | "source">): boolean {
    return identity.source === "local" && this.mfaRequired(identity.role) && !this.factors.has(identity.user)
  }

  /**
   * The second step of a sign-in waiting for one: a code from the user's authenticator app (of the
   * step before, at or after now's, and later than the last one used) or one of their recovery codes
   * (then gone). Counted under the sign-in's keys; a right one begins the session.
   */
  async secondFactor(
    request: Request,
    peer: string | undefined,
    code: string,
  ): Promise<{ identity: Identity; cookie: string }> {
    const p = this.pendingOf(request)
    if (p?.stage !== "second_factor")
      throw unauthenticated(
        "no sign-in waits for a second factor here: sign in with your password first (it waits 5 minutes)",
        "no_pending_sign_in",
      )
    const address = clientAddress(request, peer, this.trust)
    this.note(request, { claimed: p.user, action: "login.second_factor", peer: address })
    const limits = signInLimits(p.user, address)
    this.limiter.begin(limits)
    const used = this.checkCode(p.user, code.trim())
    if (!used) {
      this.limiter.failed(limits)
      throw unauthenticated("wrong code, or a code used already", "second_factor_failed")
    }
    this.limiter.succeeded(limits)
    this.pending.end(p.id)
    if (used === "recovery_code") this.note(request, { action: "mfa.recovery.used" })
    return this.signedIn(p.user, request)
  }

  /** Which of the user's factors `code` is, used now; undefined when it is none (or was used). */
  private checkCode(user: string, code: string): "totp" | "recovery_code" | undefined {
    if (this.totpCode(user, code)) return "totp"
    if (looksLikeRecoveryCode(code) && this.factors.useRecoveryCode(user, code)) return "recovery_code"
  }

  /** Whether `code` is a code of the user's authenticator app of the step before, at or after now's, not used before; used now. */
  private totpCode(user: string, code: string): boolean {
    const secret = this.factors.totpSecret(user)
    const step = secret && this.factors.get(user).totp ? matchStep(secret, code, this.now()) : undefined
    return step !== undefined && this.factors.useStep(user, step)
  }

  /** The relying party passkeys are bound to here (SVC_PUBLIC_URL, else the address the request came to). */
  relyingParty(request: Request): RelyingParty {
    return relyingParty(this.config.publicUrl, request)
  }

  /**
   * Takes, once, the challenge a passkey's answer signed: it must have been given out here for
   * `purpose` and `user` (none for a sign-in without a password) at most 5 minutes ago, and the answer
   * must come from the relying party's origin.
   */
  private takeChallenge(
    rp: RelyingParty,
    response: { response: { clientDataJSON: string } },
    purpose: Purpose,
    user: string | undefined,
    fail: (message: string, code: string) => DomainError,
  ): void {
    const { challenge, origin } = clientData(response)
    const given = this.pending.takeChallenge(challenge)
    if (!given)
      throw fail(
        "the passkey signed a challenge that is unknown, used already or older than 5 minutes: begin again",
        "challenge_unknown",
      )
    if (given.purpose !== purpose || given.user !== user)
      throw fail("the passkey signed a challenge given to another user or step", "wrong_challenge")
    if (origin !== rp.origin)
      throw fail(
        `the passkey was used on ${origin.slice(0, 200)}, not on ${rp.origin} (SVC_PUBLIC_URL)`,
        "wrong_origin",
      )
  }

  /** Options for a new passkey of `who`, with a challenge given to them (5 minutes). */
  passkeyOptions(request: Request, who: Enrollee) {
    const rp = this.relyingParty(request)
    const keys = this.factors.passkeys(who.user)
    if (keys.length >= MAX_PASSKEYS)
      throw conflict(`${who.user} has ${MAX_PASSKEYS} passkeys: remove one first`, "too_many_passkeys")
    const challenge = this.pending.challenge("register", who.user)
    return registrationOptions(rp, who.user, this.factors.handle(who.user), challenge, keys)
  }

  /** Adds the passkey a registration answer holds, under `name` (one name each). */
  async addPasskey(request: Request, who: Enrollee, name: string, response: RegistrationResponseJSON) {
    const rp = this.relyingParty(request)
    this.takeChallenge(rp, response, "register", who.user, invalid)
    const key = await verifyRegistration(rp, response, invalid)
    if (this.factors.passkeys(who.user).some((k) => k.name === name))
      throw conflict(`${who.user} has a passkey named "${name}" already`, "passkey_name_taken")
    if (this.factors.findPasskey(key.id)) throw conflict("this passkey is registered already", "passkey_exists")
    const record: PasskeyRecord = { ...key, name, created: this.now() }
    this.factors.addPasskey(who.user, record)
    return record
  }

  /**
   * Options for a sign-in with a passkey: the second step of the request's pending sign-in (the user's
   * passkeys), or, with none waiting, a sign-in without a password (any passkey the browser keeps).
   */
  passkeySignInOptions(request: Request) {
    this.localOn()
    const rp = this.relyingParty(request)
    const p = this.pendingOf(request)
    if (p?.stage === "second_factor")
      return authenticationOptions(rp, this.pending.challenge("second_factor", p.user), this.factors.passkeys(p.user))
    return authenticationOptions(rp, this.pending.challenge("passwordless"), undefined)
  }

  /**
   * A sign-in with a passkey: the second step after the password (a pending sign-in), or instead of
   * the password (a discoverable passkey, its user verified, its handle the user's). The challenge is
   * taken once; a counter that did not move past the one kept is refused and audited
   * (mfa.passkey.counter: a copied authenticator). Counted under the sign-in limits.
   */
  async passkeySignIn(
    request: Request,
    peer: string | undefined,
    response: AuthenticationResponseJSON,
  ): Promise<{ identity: Identity; cookie: string }> {
    this.localOn()
    const rp = this.relyingParty(request)
    const p = this.pendingOf(request)
    const second = p?.stage === "second_factor" ? p : undefined
    const found = this.factors.findPasskey(response.id)
    const user = second?.user ?? found?.user
    const address = clientAddress(request, peer, this.trust)
    this.note(request, { claimed: user, action: "login.passkey", peer: address })
    const limits = signInLimits(user ?? "", address)
    this.limiter.begin(limits)
    const owner = await this.checkAssertion(request, rp, response, second?.user, found).catch((err) => {
      this.limiter.failed(limits)
      throw err
    })
    this.limiter.succeeded(limits)
    if (second) this.pending.end(second.id)
    return this.signedIn(owner, request)
  }

  /** Checks a sign-in's assertion of `found` (for `user`'s second step, or without a password); the owner's name. */
  private async checkAssertion(
    request: Request,
    rp: RelyingParty,
    response: AuthenticationResponseJSON,
    user: string | undefined,
    found: ReturnType<Factors["findPasskey"]>,
  ): Promise<string> {
    this.takeChallenge(rp, response, user ? "second_factor" : "passwordless", user, unauthenticated)
    if (!found || (user ? found.user !== user : response.response.userHandle !== found.handle))
      throw unauthenticated("this passkey is not registered here for this user", "passkey_unknown")
    const counter = await verifyAssertion(rp, response, found.key, !user, unauthenticated)
    if (counterWentBack(found.key.counter, counter)) {
      this.note(request, { action: "mfa.passkey.counter" })
      throw unauthenticated(
        `the passkey "${found.key.name}" sent the counter ${counter}, not past ${found.key.counter}: it may have been copied, so it is refused (remove it and register it again)`,
        "passkey_counter",
      )
    }
    this.factors.usePasskey(found.user, found.key.id, counter, this.now())
    return found.user
  }

  /**
   * The user proves it is them again before a factor is removed: their password, or a current code of
   * their authenticator app; counted under the sign-in limits.
   */
  async reauthenticate(request: Request, user: string, proof: { password?: string; code?: string }): Promise<void> {
    if (!proof.password && !proof.code)
      throw invalid("give your password, or a current code of your authenticator app", "proof_required")
    const address = this.seen.get(request)?.peer
    const limits = signInLimits(user, address)
    this.limiter.begin(limits)
    const right = proof.code
      ? this.totpCode(user, proof.code.trim())
      : await this.passwords.check(proof.password!, this.users.get(user)?.hash, addressKey(address)).catch((err) => {
          this.limiter.takeBack(limits)
          throw err
        })
    if (!right) {
      this.limiter.failed(limits)
      throw proof.code
        ? refused("that is not a current code of your authenticator app", "wrong_code")
        : refused("the current password is wrong", "wrong_password")
    }
    this.limiter.succeeded(limits)
  }

  /**
   * Who may set up a factor with this request: a local user signed in with a session, or one whose
   * password was right and who is sent to enrol (SVC_AUTH_MFA). 401 without either; 403 for an API
   * token or a single sign-on or proxy user (their provider asks for the second factor).
   */
  enrollee(request: Request): Enrollee {
    const me = this.who(request)
    if (me) {
      if (me.source !== "local" || !this.sessionKey(request))
        throw refused(
          "second factors are set up by a local user signed in with a session: not with an API token, and a single sign-on's or a proxy's users get theirs from their provider",
          "not_a_session",
        )
      return { user: me.user, role: me.role }
    }
    const p = this.pendingOf(request)
    const record = p?.stage === "enrol" ? this.users.get(p.user) : undefined
    if (!p || !record) throw noCredential()
    this.note(request, { claimed: p.user })
    return { user: p.user, role: record.role, pending: p.id }
  }

  /**
   * A factor was set up: the first one brings ten recovery codes (shown once); a sign-in sent to
   * enrol now begins its session; a signed-in user's other sessions end.
   */
  async enrolled(
    request: Request,
    who: Enrollee,
    first: boolean,
  ): Promise<{ cookie?: string; recovery_codes?: string[] }> {
    const codes = first ? { recovery_codes: this.factors.newRecoveryCodes(who.user, this.now()) } : {}
    if (who.pending) {
      this.pending.end(who.pending)
      return { ...codes, cookie: (await this.signedIn(who.user, request)).cookie }
    }
    this.endOtherSessions(who.user, request)
    return codes
  }

  /** Refuses the removal of a user's last factor while SVC_AUTH_MFA requires one. */
  keepAFactor(who: Enrollee): void {
    if (this.mfaRequired(who.role) && this.factors.count(who.user) <= 1)
      throw conflict(
        `SVC_AUTH_MFA=${this.config.mfa} requires a second factor of ${who.user}: it cannot be removed (an admin can reset it)`,
        "factor_required",
      )
  }

  /** An admin removes every factor of `user` (a lost phone): their sessions end, and they sign in with the password alone, or enrol again if required. */
  resetFactors(user: string): void {
    if (!this.users.get(user)) throw notFound(`no user "${user}"`, "user_not_found")
    this.factors.reset(user)
    this.sessions.endAll(user)
    this.sweep()
  }

  /**
   * A signed-in local user changes their own password, giving the current one (checked as a sign-in
   * is, under the same limits): their other sessions and their API tokens end, this session stays.
   */
  async changePassword(request: Request, current: string, password: string): Promise<void> {
    const me = this.who(request)
    const key = this.sessionKey(request)
    if (!me || me.source !== "local" || !key)
      throw refused("only a local user signed in with a session changes their password here", "not_a_session")
    checkPassword(password)
    await this.reauthenticate(request, me.user, { password: current })
    this.users.change(me.user, { hash: await this.passwords.hash(password) })
    this.sessions.endAll(me.user, "local", key)
    this.tokens.revokeAll(me.user)
    this.sweep()
  }

  /**
   * Holds something opened by the request (an event stream, a WebSocket) until `release`: it is ended
   * with the reason once the credential it was opened with ends (a session signed out or expired, a
   * token revoked or expired, the user removed, here or from the command line) or no longer reaches
   * the route (a role lowered, a stack taken away). Checked every SWEEP_MS, and at once after such a
   * change made here.
   */
  keep(request: Request, end: (reason: string) => void): () => void {
    const seen = this.seen.get(request)
    if (!seen?.identity) return () => {}
    const held: Held = { seen, end }
    this.held.add(held)
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS)
    ;(this.sweeper as { unref?: () => void }).unref?.()
    return () => {
      this.held.delete(held)
      if (!this.held.size) {
        clearInterval(this.sweeper)
        this.sweeper = undefined
      }
    }
  }

  /** Why what was opened with `seen` must end now, or undefined. */
  private ended({ identity, credential, need, stack }: Seen): string | undefined {
    if (!identity) return undefined
    if (identity.source === "local" && !this.users.get(identity.user)) return "user removed"
    let now: Identity | null = identity
    if (credential?.kind === "token") {
      const t = this.tokens.find(credential.id)
      if (!t) return this.tokens.expired(credential.id) ? "token expired" : "token revoked"
      now = this.ofToken(t)
    } else if (credential?.kind === "session") {
      const s = this.sessions.find(credential.key)
      if (!s) return this.sessions.expired(credential.key) ? "session expired" : "signed out"
      now = this.ofSession(s)
    }
    if (!now) return "user removed"
    if (need && !reaches(now, need, stack)) return "role changed"
  }

  /** Ends what is held open by a credential that ended. */
  sweep(): void {
    for (const held of this.held) {
      const reason = this.ended(held.seen)
      if (reason === undefined) continue
      this.held.delete(held)
      try {
        held.end(reason)
      } catch (err) {
        console.error("auth: ending a stream:", err instanceof Error ? err.message : err)
      }
    }
  }

  /** The key of the session the request came with; undefined for any other credential. */
  sessionKey(request: Request): string | undefined {
    const credential = this.seen.get(request)?.credential
    return credential?.kind === "session" ? credential.key : undefined
  }

  /** Ends the session kept under `key` (from a sessions list) and what was opened with it. */
  endSessionKey(key: string): void {
    this.sessions.endKey(key)
    this.sweep()
  }

  /** Ends a local user's sessions but the request's own (their password or factors changed), and what those opened. */
  endOtherSessions(user: string, request: Request): void {
    this.sessions.endAll(user, "local", this.sessionKey(request))
    this.sweep()
  }

  /** Ends every session and token of a local user (removed, or their password changed), and what they opened. */
  forget(user: string): void {
    this.sessions.endAll(user)
    this.tokens.revokeAll(user)
    this.sweep()
  }

  /** A local user's role or stacks changed: their sessions and tokens follow at once, and what no longer reaches its route ends. */
  changed(): void {
    this.sweep()
  }

  /** Writes when each token and session was last used (at the service's stop). */
  async flush(): Promise<void> {
    await Promise.all([this.tokens.flush(), this.sessions.flush()])
  }

  /** Revokes one API token and ends what was opened with it. */
  revoke(id: string): void {
    this.tokens.revoke(id)
    this.sweep()
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
    entry: Pick<AuditInput, "method" | "route" | "target" | "status" | "seconds"> & {
      action?: string
      peer?: string
      reason?: string
    },
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
      peer: s?.peer ?? entry.peer ?? null,
      token: who?.token ?? null,
      ...(s?.tool ? { tool: s.tool } : {}),
      ...(who?.via ? { via: who.via } : {}),
      ...(entry.reason ? { reason: entry.reason } : {}),
      ...(entry.seconds === undefined ? {} : { seconds: entry.seconds }),
    }
    this.audit.write(input)
  }
}
