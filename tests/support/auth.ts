// Sign-in for handler tests: a test app with SVC_AUTH on, a cheap argon2id that counts its calls,
// users of each role, their session cookies and API tokens.
import { Auth } from "#lib/auth/auth.ts"
import type { Hasher } from "#lib/auth/passwords.ts"
import type { Role } from "#lib/auth/roles.ts"
import type { Ctx } from "#lib/service/context.ts"
import { codeAt } from "#lib/auth/totp.ts"
import { testApp, type TestApp } from "./app.ts"
import { SoftAuthenticator } from "./webauthn.ts"

export const PASSWORD = "correct horse"

/** argon2id at its lowest cost, counting each hash and check. */
export function countingHasher(): { hasher: Hasher; calls: { hash: number; verify: number } } {
  const calls = { hash: 0, verify: 0 }
  return {
    calls,
    hasher: {
      hash: (password) => (
        calls.hash++, Bun.password.hash(password, { algorithm: "argon2id", memoryCost: 64, timeCost: 1 })
      ),
      verify: (password, hash) => (calls.verify++, Bun.password.verify(password, hash)),
    },
  }
}

export interface AuthTestApp extends TestApp {
  calls: { hash: number; verify: number }
  /** The wall clock the app sees (milliseconds); tests move it. */
  clock: { now: number }
  addUser(name: string, role: Role, stacks?: string[]): Promise<void>
  /** Signs in and returns the Cookie header that carries the session. */
  signIn(name: string, password?: string): Promise<string>
  /** A new API token of the user signed in with `cookie`. */
  token(cookie: string, body?: Record<string, unknown>): Promise<{ token: string; id: string }>
  /** Sets up an authenticator app for the user signed in with `cookie` (or sent to enrol): its secret and the recovery codes. */
  enrolTotp(cookie: string): Promise<{ secret: string; codes: string[]; res: Response }>
  /** Registers a passkey named `name` for the user signed in with `cookie` (or sent to enrol), made by a software authenticator for this app's address. */
  enrolPasskey(cookie: string, name?: string): Promise<{ authenticator: SoftAuthenticator; res: Response }>
  /** The password step of a sign-in with a second step: the hm_pending Cookie header. */
  password(name: string): Promise<string>
}

export async function authApp(env: Record<string, string> = {}, overrides: Partial<Ctx> = {}): Promise<AuthTestApp> {
  const clock = { now: Date.now() }
  const t = await testApp({ now: () => clock.now, ...overrides }, { SVC_AUTH: "local", ...env })
  const { hasher, calls } = countingHasher()
  t.ctx.auth = new Auth({ config: t.ctx.config.auth, dataDir: t.dataDir, now: t.ctx.now, hasher })
  return Object.assign(t, {
    calls,
    clock,
    async addUser(name: string, role: Role, stacks?: string[]) {
      t.ctx.auth.users.add(name, {
        role,
        ...(stacks && { stacks }),
        hash: await hasher.hash(PASSWORD),
        created: new Date(clock.now).toISOString(),
      })
    },
    async signIn(name: string, password = PASSWORD) {
      const res = await t.call("POST", "/api/auth/login", { user: name, password })
      if (res.status !== 200) throw new Error(`sign-in of ${name} answered ${res.status}: ${await res.text()}`)
      return res.headers.get("set-cookie")!.split(";")[0]!
    },
    async enrolTotp(cookie: string) {
      const begun = await t.call("POST", "/api/auth/factors/totp", undefined, { cookie })
      if (begun.status !== 200) throw new Error(`TOTP enrolment answered ${begun.status}: ${await begun.text()}`)
      const { secret } = (await begun.json()) as { secret: string }
      const res = await t.call(
        "POST",
        "/api/auth/factors/totp/confirm",
        { code: codeAt(secret, clock.now) },
        { cookie },
      )
      if (res.status !== 200) throw new Error(`TOTP confirmation answered ${res.status}: ${await res.clone().text()}`)
      const { recovery_codes } = (await res.clone().json()) as { recovery_codes?: string[] }
      return { secret, codes: recovery_codes ?? [], res }
    },
    async enrolPasskey(cookie: string, name = "laptop") {
      const authenticator = new SoftAuthenticator("http://127.0.0.1:8080", "127.0.0.1")
      const options = await t.call("POST", "/api/auth/factors/passkeys/options", undefined, { cookie })
      if (options.status !== 200) throw new Error(`passkey options answered ${options.status}: ${await options.text()}`)
      const credential = authenticator.register(await options.json())
      const res = await t.call("POST", "/api/auth/factors/passkeys", { name, credential }, { cookie })
      if (res.status !== 201)
        throw new Error(`passkey registration answered ${res.status}: ${await res.clone().text()}`)
      return { authenticator, res }
    },
    async password(name: string) {
      const res = await t.call("POST", "/api/auth/login", { user: name, password: PASSWORD })
      if (res.status !== 202) throw new Error(`sign-in of ${name} answered ${res.status}: ${await res.text()}`)
      return res.headers.get("set-cookie")!.split(";")[0]!
    },
    async token(cookie: string, body: Record<string, unknown> = {}) {
      const res = await t.call("POST", "/api/tokens", { name: "test", ...body }, { cookie })
      if (res.status !== 201) throw new Error(`token answered ${res.status}: ${await res.text()}`)
      return (await res.json()) as { token: string; id: string }
    },
  })
}
