// Time-based one-time codes (RFC 6238) as authenticator apps make them: HMAC-SHA1, 6 digits, 30-second
// steps, through `otpauth`. A code is taken from the step before to the step after the server's
// (a phone's clock a little off); which step matched is returned, so that a code, once used, is never
// taken again (the caller keeps the last step used). The enrolment's QR code is qr.ts's.
import * as OTPAuth from "otpauth"
import { randomBytes } from "./secrets.ts"

export const ISSUER = "Harbormaster"
const PERIOD = 30

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), in base32 as apps take it. */
export const newTotpSecret = (): string => new OTPAuth.Secret({ buffer: randomBytes(20).buffer as ArrayBuffer }).base32

const totp = (user: string, secret: string) =>
  new OTPAuth.TOTP({ issuer: ISSUER, label: user, secret: OTPAuth.Secret.fromBase32(secret), period: PERIOD })

/** The otpauth:// address an app reads from the QR code. */
export const totpUri = (user: string, secret: string): string => totp(user, secret).toString()

/** The step a time falls in. */
export const stepAt = (ms: number): number => Math.floor(ms / 1000 / PERIOD)

/** The step `code` belongs to, when it is the code of the step before, at or after `now`'s; else undefined. */
export function matchStep(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined
  const delta = totp("-", secret).validate({ token: code, timestamp: now, window: 1 })
  return delta === null ? undefined : stepAt(now) + delta
}

/** The code of the step `now` falls in (what an app shows; the tests' authenticator). */
export const codeAt = (secret: string, now: number): string => totp("-", secret).generate({ timestamp: now })
