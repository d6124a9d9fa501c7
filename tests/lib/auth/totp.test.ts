// The codes are RFC 6238's (its appendix B test vectors, SHA-1, cut to the 6 digits apps show), a code
// is taken from the step before to the step after, and the step it matched is the one named.
import { expect, test } from "bun:test"
import { codeAt, matchStep, newTotpSecret, stepAt, totpUri } from "#lib/auth/totp.ts"

// "12345678901234567890" in base32: RFC 6238's SHA-1 seed.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

test("RFC 6238's test vectors, as 6 digits", () => {
  const vectors: [number, string][] = [
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ]
  for (const [seconds, eight] of vectors) expect(codeAt(RFC_SECRET, seconds * 1000)).toBe(eight.slice(2))
})

test("a code matches at its own step and the steps either side, not two away", () => {
  const secret = newTotpSecret()
  const now = 1_800_000_000_000
  const at = (offset: number) => codeAt(secret, now + offset * 30_000)
  expect(matchStep(secret, at(0), now)).toBe(stepAt(now))
  expect(matchStep(secret, at(-1), now)).toBe(stepAt(now) - 1)
  expect(matchStep(secret, at(1), now)).toBe(stepAt(now) + 1)
  for (const far of [-2, 2]) if (at(far) !== at(0)) expect(matchStep(secret, at(far), now)).toBeUndefined()
  expect(matchStep(secret, "12345", now)).toBeUndefined()
  expect(matchStep(secret, "abcdef", now)).toBeUndefined()
})

test("a secret is 160 bits in base32; the app's address names the issuer and the user", () => {
  const secret = newTotpSecret()
  expect(secret).toMatch(/^[A-Z2-7]{32}$/)
  expect(newTotpSecret()).not.toBe(secret)
  expect(totpUri("ann@example.com", secret)).toBe(
    `otpauth://totp/Harbormaster:ann%40example.com?issuer=Harbormaster&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
  )
})
