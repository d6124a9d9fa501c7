// Each local user's second factors: a TOTP (its secret in the secret store, `<data>/secrets/totp.json`,
// 0600 in 0700; beside the user only when it was made and the last step whose code was used), passkeys
// (WebAuthn credentials with their names, public keys and counters, and the user's random handle, all
// in the secret store's `passkeys.json`) and ten recovery codes kept as SHA-256 digests, each usable
// once. `<data>/auth/factors.json` holds all but the secrets and passkeys, replaced whole on a change
// and read again when it changed on disk (the command line's `user reset-factors`); the secret store's
// files are sealed with the service's key.
import { join } from "node:path"
import { SECRETS_DIR } from "../data/secrets.ts"
import { JsonFile } from "./json-file.ts"
import { randomBytes, sha256 } from "./secrets.ts"

export interface FactorRecord {
  totp?: { created: number; last_step: number }
  recovery?: { hashes: string[]; created: number }
}

/** A passkey: its credential id, the name its owner gave it, its public key (COSE, base64url) and the last counter it sent. */
export interface PasskeyRecord {
  id: string
  name: string
  public_key: string
  counter: number
  transports?: string[]
  created: number
  last_used?: number
}

/** A user's passkeys and the handle (random, base64url) their authenticators keep for them. */
interface PasskeyOwner {
  handle: string
  keys: PasskeyRecord[]
}

export type Method = "totp" | "passkey" | "recovery_code"

/** At most this many passkeys per user. */
export const MAX_PASSKEYS = 20

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
  private keys: JsonFile<Record<string, PasskeyOwner>>

  constructor(dataDir: string) {
    this.file = new JsonFile(join(dataDir, "auth", "factors.json"), () => ({}))
    this.secrets = new JsonFile(join(dataDir, SECRETS_DIR, "totp.json"), () => ({}), true)
    this.keys = new JsonFile(join(dataDir, SECRETS_DIR, "passkeys.json"), () => ({}), true)
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
    if (this.passkeys(user).length) methods.push("passkey")
    if (methods.length && f.recovery?.hashes.length) methods.push("recovery_code")
    return methods
  }

  /** How many factors `user` has (recovery codes are none). */
  count(user: string): number {
    return (this.get(user).totp ? 1 : 0) + this.passkeys(user).length
  }

  /** Whether `user` has a factor. */
  has(user: string): boolean {
    return this.count(user) > 0
  }

  private change<R>(user: string, change: (f: FactorRecord) => R): R {
    return this.file.update((all) => {
      const f = (Object.hasOwn(all, user) ? all[user] : undefined) ?? {}
      const result = change(f)
      // Recovery codes stand in for a factor: with the last one gone, they go too.
      if (!f.totp && !this.passkeys(user).length) delete f.recovery
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

  passkeys(user: string): PasskeyRecord[] {
    const all = this.keys.read()
    return (Object.hasOwn(all, user) ? all[user]?.keys : undefined) ?? []
  }

  /** The handle `user`'s authenticators keep for them (made at their first passkey's options). */
  handle(user: string): string {
    const all = this.keys.read()
    const known = Object.hasOwn(all, user) ? all[user]?.handle : undefined
    if (known) return known
    const handle = randomBytes(32).toString("base64url")
    this.keys.update((all) => void (all[user] = { handle, keys: [] }))
    return handle
  }

  /** The passkey with credential id `id`, whoever's it is, with its owner and their handle. */
  findPasskey(id: string): { user: string; handle: string; key: PasskeyRecord } | undefined {
    for (const [user, owner] of Object.entries(this.keys.read())) {
      const key = owner.keys.find((k) => k.id === id)
      if (key) return { user, handle: owner.handle, key }
    }
  }

  addPasskey(user: string, key: PasskeyRecord): void {
    this.keys.update((all) => {
      const owner = (Object.hasOwn(all, user) ? all[user] : undefined) ?? {
        handle: randomBytes(32).toString("base64url"),
        keys: [],
      }
      owner.keys.push(key)
      all[user] = owner
    })
  }

  /** Keeps the counter a passkey's answer carried, and when it was used. */
  usePasskey(user: string, id: string, counter: number, now: number): void {
    this.keys.update((all) => {
      const key = (Object.hasOwn(all, user) ? all[user]?.keys : undefined)?.find((k) => k.id === id)
      if (key) Object.assign(key, { counter, last_used: now })
    })
  }

  /** Removes one passkey of `user` (with the last factor, the recovery codes go); false when there was none. */
  removePasskey(user: string, id: string): boolean {
    const removed = this.keys.update((all) => {
      const owner = Object.hasOwn(all, user) ? all[user] : undefined
      const before = owner?.keys.length ?? 0
      if (owner) owner.keys = owner.keys.filter((k) => k.id !== id)
      return (owner?.keys.length ?? 0) < before
    })
    this.change(user, () => {})
    return removed
  }

  /** Removes the factors and recovery codes of `user` (an admin's reset, the user removed); false when there were none. */
  reset(user: string): boolean {
    const hadKeys = this.passkeys(user).length > 0
    this.secrets.update((all) => void delete all[user])
    this.keys.update((all) => void delete all[user])
    const had = this.file.update((all) => {
      const had = Object.hasOwn(all, user)
      delete all[user]
      return had
    })
    return had || hadKeys
  }
}

/** A user's factors as the API shows them: never a secret or a code's digest. */
export const factorsView = (user: string, f: FactorRecord, keys: PasskeyRecord[], required: boolean) => ({
  user,
  totp: !!f.totp,
  passkeys: keys.map(({ id, name, created, last_used }) => ({ id, name, created, ...(last_used && { last_used }) })),
  recovery_codes: f.recovery?.hashes.length ?? 0,
  required,
})
