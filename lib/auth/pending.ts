// Sign-ins half done, in memory only: a password was right and the user must still give a second
// factor (`second_factor`) or, required to have one and having none, enrol one (`enrol`). Not a
// session: a pending sign-in reaches no route but the second step's and enrolment's. Found by a
// cookie carrying a random key (only its SHA-256 is kept), it lives 5 minutes (an enrolment 15) and
// ends when the session begins. What an enrolment under way needs (a TOTP secret not yet confirmed) is
// kept here too, by user, for 15 minutes, and so are the passkey challenges given out: each for one
// purpose (and user, but for a sign-in without a password), taken once, for 5 minutes.
import { randomSecret, sha256 } from "./secrets.ts"

export type Stage = "second_factor" | "enrol"

export interface PendingSignIn {
  user: string
  stage: Stage
  expires: number
}

/** What a passkey challenge was given for: a new passkey, a sign-in's second step, a sign-in without a password. */
export type Purpose = "register" | "second_factor" | "passwordless"

export interface Challenge {
  purpose: Purpose
  user: string | undefined
  expires: number
}

export const PENDING_COOKIE = "hm_pending"
export const PENDING_MS = { second_factor: 5 * 60_000, enrol: 15 * 60_000, challenge: 5 * 60_000 }
const MAX = 10_000

/** A bounded map whose entries expire: the oldest give way past MAX. */
class Expiring<T extends { expires: number }> {
  private entries = new Map<string, T>()
  constructor(private now: () => number) {}

  set(key: string, value: T): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    for (const [k, v] of this.entries) {
      if (this.entries.size <= MAX && v.expires > this.now()) break
      this.entries.delete(k)
    }
  }

  get(key: string): T | undefined {
    const v = this.entries.get(key)
    if (v && v.expires <= this.now()) this.entries.delete(key)
    return v && v.expires > this.now() ? v : undefined
  }

  delete(key: string): void {
    this.entries.delete(key)
  }
}

export class Pending {
  private signIns: Expiring<PendingSignIn>
  private enrolments: Expiring<{ value: string; expires: number }>
  private challenges: Expiring<Challenge>

  constructor(private now: () => number) {
    this.signIns = new Expiring(now)
    this.enrolments = new Expiring(now)
    this.challenges = new Expiring(now)
  }

  /** A new random challenge (base64url) for `purpose`, and `user` when it is known. */
  challenge(purpose: Purpose, user?: string): string {
    const challenge = randomSecret()
    this.challenges.set(challenge, { purpose, user, expires: this.now() + PENDING_MS.challenge })
    return challenge
  }

  /** What `challenge` was given for, taken once; undefined when it is unknown, used or expired. */
  takeChallenge(challenge: string): Challenge | undefined {
    const c = this.challenges.get(challenge)
    this.challenges.delete(challenge)
    return c
  }

  /** A new pending sign-in; returns the cookie's value. */
  start(user: string, stage: Stage): string {
    const id = randomSecret()
    this.signIns.set(sha256(id), { user, stage, expires: this.now() + PENDING_MS[stage] })
    return id
  }

  get(id: string | undefined): PendingSignIn | undefined {
    return id ? this.signIns.get(sha256(id)) : undefined
  }

  end(id: string): void {
    this.signIns.delete(sha256(id))
  }

  /** Keeps what an enrolment of `user` under way needs (`kind`: a TOTP secret). */
  hold(kind: string, user: string, value: string): void {
    this.enrolments.set(`${kind}:${user}`, { value, expires: this.now() + PENDING_MS.enrol })
  }

  /** What `hold` kept, taken once. */
  take(kind: string, user: string): string | undefined {
    const v = this.enrolments.get(`${kind}:${user}`)
    this.enrolments.delete(`${kind}:${user}`)
    return v?.value
  }

  /** What `hold` kept, left in place (a TOTP secret stays until a right code confirms it). */
  peek(kind: string, user: string): string | undefined {
    return this.enrolments.get(`${kind}:${user}`)?.value
  }
}
