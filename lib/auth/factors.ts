// Each local user's second factor: a TOTP (its secret in the secret store, `<data>/secrets/totp.json`,
// 0600 in 0700; beside the user only when it was made and the last step whose code was used) and ten
// recovery codes kept as SHA-256 digests, each usable once. `<data>/auth/factors.json` holds all but the secrets, replaced whole on a change
// and read again when it changed on disk (the command line's `user reset-factors`).
import { join } from "node:path"
import { SECRETS_DIR } from "../data/secrets.ts"
import { JsonFile } from "./json-file.ts"
import { randomBytes, sha256 } from "./secrets.ts"

export interface FactorRecord {
  totp?: { created: number; last_step: number }
  recovery?: { hashes: string[]; created: number }
}

export type Method = "totp" | "recovery_code"

export const RECOVERY_CODES = 10
const CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"

/** A recovery code as written: four groups of four from 31 letters and digits (about 79 bits). */
function recoveryCode(): string {
  const bytes = randomBytes(16)
  const chars = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length])
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join("")).join("-")
}

/** A recovery code as typed (any case, with or without dashes and spaces), as its digest is taken. */
const normalCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, "")

export const looksLikeRecoveryCode = (code: string) => /^[a-z0-9]{16}$/.test(normalCode(code))

export class Factors {
  private file: JsonFile<Record<string, FactorRecord>>
  private secrets: JsonFile<Record<string, string>>

  constructor(dataDir: string) {
    this.file = new JsonFile(join(dataDir, "auth", "factors.json"), () => ({}))
    this.secrets = new JsonFile(join(dataDir, SECRETS_DIR, "totp.json"), () => ({}), true)
  }

  get(user: string): FactorRecord {
    const all = this.file.read()
    return (Object.hasOwn(all, user) ? all[user] : undefined) ?? {}
  }

  /** The ways `user` can give a second factor; empty when they have none. */
  methods(user: string): Method[] {
    const f = this.get(user)
    const methods: Method[] = []
    if (f.totp) methods.push("totp")
    if (methods.length && f.recovery?.hashes.length) methods.push("recovery_code")
    return methods
  }

  /** Whether `user` has a factor (recovery codes alone are none). */
  has(user: string): boolean {
    return !!this.get(user).totp
  }

  private change<R>(user: string, change: (f: FactorRecord) => R): R {
    return this.file.update((all) => {
      const f = (Object.hasOwn(all, user) ? all[user] : undefined) ?? {}
      const result = change(f)
      // Recovery codes stand in for a factor: with the last one gone, they go too.
      if (!f.totp) delete f.recovery
      if (f.totp || f.recovery) all[user] = f
      else delete all[user]
      return result
    })
  }

  totpSecret(user: string): string | undefined {
    const all = this.secrets.read()
    return Object.hasOwn(all, user) ? all[user] : undefined
  }

  /** Turns TOTP on with `secret`, the step of the code that confirmed it counting as used. */
  setTotp(user: string, secret: string, step: number, now: number): void {
    this.secrets.update((all) => void (all[user] = secret))
    this.change(user, (f) => void (f.totp = { created: now, last_step: step }))
  }

  /** Takes `step` as used when it is later than the last one used; false when it is not (a code used again). */
  useStep(user: string, step: number): boolean {
    return this.change(user, (f) => {
      if (!f.totp || step <= f.totp.last_step) return false
      f.totp.last_step = step
      return true
    })
  }

  removeTotp(user: string): boolean {
    this.secrets.update((all) => void delete all[user])
    return this.change(user, (f) => {
      const had = !!f.totp
      delete f.totp
      return had
    })
  }

  /** Ten new recovery codes, which replace any before; only their digests are kept. */
  newRecoveryCodes(user: string, now: number): string[] {
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode)
    this.change(user, (f) => void (f.recovery = { hashes: codes.map((c) => sha256(normalCode(c))), created: now }))
    return codes
  }

  /** Uses a recovery code: true, and it is gone, when it is one of the user's; false otherwise. */
  useRecoveryCode(user: string, code: string): boolean {
    const digest = sha256(normalCode(code))
    return this.change(user, (f) => {
      const i = f.recovery?.hashes.indexOf(digest) ?? -1
      if (i < 0) return false
      f.recovery!.hashes.splice(i, 1)
      return true
    })
  }

  /** Removes the factor and recovery codes of `user` (an admin's reset, the user removed); false when there were none. */
  reset(user: string): boolean {
    this.secrets.update((all) => void delete all[user])
    return this.file.update((all) => {
      const had = Object.hasOwn(all, user)
      delete all[user]
      return had
    })
  }
}

/** A user's factors as the API shows them: never a secret or a code's digest. */
export const factorsView = (user: string, f: FactorRecord, required: boolean) => ({
  user,
  totp: !!f.totp,
  recovery_codes: f.recovery?.hashes.length ?? 0,
  required,
})
