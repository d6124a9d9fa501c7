// Passkeys (WebAuthn) through @simplewebauthn/server: the relying party this service is (its id and
// origin from SVC_PUBLIC_URL, else the address the request came to; refused on plain HTTP but on
// this host), the options a browser's navigator.credentials.create() and .get() take, and the checks
// of what an authenticator answers (challenge, origin, RP id, signature, user presence). Which
// challenge was given to whom, and the counter a passkey reached, are the caller's. The library is
// loaded by the first passkey operation: with its certificate and ASN.1 parsers it would be a third of
// what a start loads (bench/startup.ts).
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server"
import { invalid, refused, type DomainError } from "../errors/errors.ts"
import type { PasskeyRecord } from "./factors.ts"

export type { AuthenticationResponseJSON, RegistrationResponseJSON }

const library = () => import("@simplewebauthn/server")

export const RP_NAME = "Harbormaster"
/** How long a challenge is good for, and the browser's prompt with it (milliseconds). */
export const CHALLENGE_MS = 5 * 60_000

export interface RelyingParty {
  /** The RP id: the host name passkeys are bound to. */
  id: string
  /** The one origin their ceremonies may come from. */
  origin: string
}

/** Browsers allow WebAuthn on plain HTTP on this host only. */
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"])

/** The relying party for a request: SVC_PUBLIC_URL's origin, else the request's own; 403 passkeys_need_https on plain HTTP elsewhere than this host. */
export function relyingParty(publicUrl: string | undefined, request: Request): RelyingParty {
  const url = new URL(publicUrl ?? request.url)
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname)))
    throw refused(
      `passkeys need https: ${url.origin} is plain HTTP${publicUrl ? " (SVC_PUBLIC_URL)" : ""}; set SVC_PUBLIC_URL to the https:// address people open (a TLS proxy in front), or open http://localhost on this host (browsers refuse an IP address as a passkey's host)`,
      "passkeys_need_https",
    )
  return { id: url.hostname, origin: url.origin }
}

/** What the browser says it signed (clientDataJSON): the challenge and the origin; 400 when it is not readable. */
export function clientData(response: { response: { clientDataJSON: string } }): { challenge: string; origin: string } {
  try {
    const data = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString("utf8"))
    if (typeof data?.challenge === "string" && typeof data.origin === "string")
      return { challenge: data.challenge, origin: data.origin }
  } catch {}
  throw invalid("the passkey's answer has no readable clientDataJSON", "passkey_refused")
}

const refusedBy = (err: unknown, fail: (message: string, code: string) => DomainError): DomainError =>
  fail(`the passkey's answer does not check out: ${err instanceof Error ? err.message : err}`, "passkey_refused")

/** Options for navigator.credentials.create(): a discoverable credential when the authenticator can keep one. */
export async function registrationOptions(
  rp: RelyingParty,
  user: string,
  handle: string,
  challenge: string,
  existing: PasskeyRecord[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await library()
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: user,
    userID: Buffer.from(handle, "base64url"),
    challenge: Buffer.from(challenge, "base64url"),
    timeout: CHALLENGE_MS,
    attestationType: "none",
    excludeCredentials: existing.map((k) => ({ id: k.id, transports: k.transports })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  })
}

/** The new passkey a registration answer holds, checked against the relying party (the challenge is checked by the caller). */
export async function verifyRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  fail: (message: string, code: string) => DomainError,
): Promise<Pick<PasskeyRecord, "id" | "public_key" | "counter" | "transports">> {
  const { verifyRegistrationResponse } = await library()
  const verified = await verifyRegistrationResponse({
    response,
    expectedChallenge: () => true,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch((err) => {
    throw refusedBy(err, fail)
  })
  if (!verified.verified) throw fail("the passkey's attestation does not check out", "passkey_refused")
  const { credential } = verified.registrationInfo
  return {
    id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    ...(credential.transports?.length && { transports: credential.transports }),
  }
}

/** Options for navigator.credentials.get(): the user's passkeys for a second step, none (any discoverable one) without a user. */
export async function authenticationOptions(
  rp: RelyingParty,
  challenge: string,
  keys: PasskeyRecord[] | undefined,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await library()
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: Buffer.from(challenge, "base64url"),
    timeout: CHALLENGE_MS,
    userVerification: keys ? "preferred" : "required",
    ...(keys && { allowCredentials: keys.map((k) => ({ id: k.id, transports: k.transports })) }),
  })
}

/**
 * Checks an assertion of `key` against the relying party: origin, RP id, user presence (and
 * verification, without a password before it), signature. Returns the counter it carries, which the
 * caller compares with the one kept.
 */
export async function verifyAssertion(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  key: PasskeyRecord,
  requireUserVerification: boolean,
  fail: (message: string, code: string) => DomainError,
): Promise<number> {
  const { verifyAuthenticationResponse } = await library()
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: () => true,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    // The kept counter is compared by the caller, after the signature, so that a counter that went
    // backwards is told apart (a copied authenticator) from an answer that does not check out.
    credential: { id: key.id, publicKey: Buffer.from(key.public_key, "base64url"), counter: 0 },
    requireUserVerification,
  }).catch((err) => {
    throw refusedBy(err, fail)
  })
  if (!verified.verified) throw fail("the passkey's signature does not check out", "passkey_refused")
  return verified.authenticationInfo.newCounter
}

/** A counter that did not move past the one kept (both not zero: an authenticator that keeps none sends 0). */
export const counterWentBack = (kept: number, now: number): boolean => (now > 0 || kept > 0) && now <= kept
